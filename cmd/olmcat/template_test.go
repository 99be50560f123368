package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/templatetest"
)

// TestRenderTemplateCorpus runs every render and error case of the template corpus end to end:
// the bundle images pushed to a loopback registry, opm's command line with olmcat in opm's place,
// stdout compared byte for byte (errors: opm's message, exit code 1, nothing on stdout).
func TestRenderTemplateCorpus(t *testing.T) {
	for _, kind := range []string{"render", "errors"} {
		for _, c := range templatetest.Cases(t, kind) {
			t.Run(c.ID, func(t *testing.T) {
				host := templatetest.PushImages(t, c)
				for _, r := range c.Runs {
					stdout, stderr, code := runCorpusCommand(t, c, r, host)
					if kind == "errors" {
						if code != 1 || stdout != "" {
							t.Fatalf("%s: exit %d, stdout %q; want exit 1 and no output", r.Expected, code, stdout)
						}
						first, _, _ := strings.Cut(stderr, "\n")
						want := "Error: " + templatetest.ComparableError(c.ErrorMessage(t))
						if got := templatetest.ComparableError(first); got != want {
							t.Errorf("stderr\n got %s\nwant %s", got, want)
						}
						if !strings.Contains(stderr, "\nolmcat: ") {
							t.Errorf("stderr has no olmcat: line saying what to do:\n%s", stderr)
						}
						continue
					}
					if code != 0 {
						t.Fatalf("%s: exit %d: %s", r.Expected, code, stderr)
					}
					if want := string(c.Read(t, r.Expected)); stdout != want {
						t.Errorf("%s: stdout differs from opm's (%d bytes, want %d)", r.Expected, len(stdout), len(want))
					}
				}
			})
		}
	}
}

// TestConvertTemplateCorpus runs every convert case end to end, -o json and -o yaml.
func TestConvertTemplateCorpus(t *testing.T) {
	for _, c := range templatetest.Cases(t, "convert") {
		t.Run(c.ID, func(t *testing.T) {
			for _, r := range c.Runs {
				stdout, stderr, code := runCorpusCommand(t, c, r, "127.0.0.1:5017")
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", r.Expected, code, stderr)
				}
				if want := string(c.Read(t, r.Expected)); stdout != want {
					t.Errorf("%s: stdout differs from opm's (%d bytes, want %d)", r.Expected, len(stdout), len(want))
				}
			}
		})
	}
}

// runCorpusCommand runs olmcat with opm's arguments, the case's input file copied with its image
// references moved to host, and gives stdout and stderr with host moved back.
func runCorpusCommand(t *testing.T, c templatetest.Case, r templatetest.Run, host string) (stdout, stderr string, code int) {
	t.Helper()
	input := filepath.Join(t.TempDir(), r.File)
	if err := os.WriteFile(input, []byte(templatetest.ToHost(string(c.Read(t, r.File)), host)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		if a == r.File {
			a = input
		}
		args[i] = a
	}
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return templatetest.FromHost(out.String(), host), templatetest.FromHost(errOut.String(), host), code
}

// A template read as a catalog reference gets --migrate-level as render-template applies it:
// `olmcat render TEMPLATE --migrate-level L` is render-template's output for L, and migrate writes
// the same bundles.
func TestMigrateLevelAppliesToTemplateInputs(t *testing.T) {
	c := templatetest.CaseByID(t, "render", "semver-clusterpulse")
	host := templatetest.PushImages(t, c)
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "semver.yaml")
	writeFile(t, tmpl, templatetest.ToHost(string(c.Read(t, "template.yaml")), host))
	const level = "bundle-object-to-csv-metadata"
	migrated := filepath.Join(dir, "migrated.json")
	writeFile(t, migrated, mustRun(t, "render-template", tmpl, "--migrate-level", level))
	want := mustRun(t, "render", migrated)
	if !strings.Contains(want, `"olm.csv.metadata"`) || strings.Contains(want, `"olm.bundle.object"`) {
		t.Fatalf("render-template --migrate-level %s kept bundle objects", level)
	}
	if got := mustRun(t, "render", tmpl, "--migrate-level", level); got != want {
		t.Errorf("render TEMPLATE --migrate-level %s differs from render-template's output for it (%d bytes, want %d)", level, len(got), len(want))
	}
	out := filepath.Join(dir, "out")
	mustRun(t, "migrate", tmpl, out, "--migrate-level", level)
	if got := mustRun(t, "render", out); got != want {
		t.Errorf("migrate TEMPLATE --migrate-level %s differs from render-template's output for it (%d bytes, want %d)", level, len(got), len(want))
	}
	if got := mustRun(t, "render", tmpl); !strings.Contains(got, `"olm.bundle.object"`) {
		t.Error("without --migrate-level, render TEMPLATE has no bundle objects")
	}
}

// Every command that may render a template takes the same registry and bundle flags, so that the
// README's "--insecure is both" and a CI's --platform hold for render-template as for validate.
func TestTemplateCommandsShareRegistryAndBundleFlags(t *testing.T) {
	flags := []string{"insecure", "platform", "use-http", "skip-tls-verify", "cache-dir", "bundles-from", "cache-max-age", "pull-parallelism", "allow-registry", "allow-local-images"}
	for _, path := range [][]string{{"render-template"}, {"validate"}, {"diff"}, {"graph"}, {"render"}, {"serve"}, {"migrate"}, {"compat"}, {"inspect", "packages"}} {
		cmd, _, err := newRootCmd().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flags {
			if cmd.Flags().Lookup(f) == nil {
				t.Errorf("olmcat %s has no --%s", strings.Join(path, " "), f)
			}
		}
	}

	c := templatetest.CaseByID(t, "render", "semver-clusterpulse")
	host := templatetest.PushImages(t, c)
	tmpl := filepath.Join(t.TempDir(), "semver.yaml")
	writeFile(t, tmpl, templatetest.ToHost(string(c.Read(t, "template.yaml")), host))
	want := templatetest.ToHost(string(c.Read(t, "expected.json")), host)
	// The bundle images are single-platform: any --platform takes them, as opm does.
	if got := mustRun(t, "render-template", tmpl, "--insecure", "--platform", "linux/arm64"); got != want {
		t.Errorf("render-template --insecure --platform linux/arm64: output differs from opm's (%d bytes, want %d)", len(got), len(want))
	}
	code, _, stderr := runCLI(t, "render-template", tmpl, "--platform", "linux")
	if code != 1 || !strings.Contains(stderr, `platform "linux": want OS/ARCH[/VARIANT]`) {
		t.Errorf("render-template --platform linux: exit %d, want 1 and the platform's error\n%s", code, stderr)
	}
}
