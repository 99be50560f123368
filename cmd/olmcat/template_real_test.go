package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The real templates of ../shared/conformance/templates-real, each with the catalog its
// repository's pipeline rendered from it: rendered offline with the pipeline's flags and the
// bundles of the committed catalog (--bundles-from), they give that catalog byte for byte.

const templatesReal = conformance + "/templates-real"

// realTemplateCase is one case of templates-real, copied to a temporary directory with every image
// moved to a registry that is not there (127.0.0.1:1), so that the test is offline wherever it
// runs: an image olmcat tried to pull would fail at once, never reach the real registry.
type realTemplateCase struct {
	dir, template, catalog, bundlesFrom string
	pipelineFlags                       []string
}

const offlineRegistry = "127.0.0.1:1"

func realTemplate(t *testing.T, id string) realTemplateCase {
	t.Helper()
	src := filepath.Join(templatesReal, id)
	data, err := os.ReadFile(filepath.Join(src, "CASE.json"))
	if os.IsNotExist(err) {
		t.Skipf("the real templates corpus is not at %s (../shared/conformance/templates-real)", src)
	}
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Template      string   `json:"template"`
		Catalog       string   `json:"catalog"`
		PipelineFlags []string `json:"pipeline_flags"`
		BundlesFrom   string   `json:"bundles_from"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	dir := t.TempDir()
	for _, rel := range []string{c.Template, c.Catalog} {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, out, strings.ReplaceAll(string(data), "quay.io/", offlineRegistry+"/"))
	}
	return realTemplateCase{dir: dir, template: filepath.Join(dir, c.Template), catalog: filepath.Join(dir, c.Catalog),
		bundlesFrom: filepath.Join(dir, c.BundlesFrom), pipelineFlags: c.PipelineFlags}
}

func realTemplateIDs(t *testing.T) []string {
	entries, err := os.ReadDir(templatesReal)
	if os.IsNotExist(err) {
		t.Skipf("the real templates corpus is not at %s (../shared/conformance/templates-real)", templatesReal)
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	if len(ids) < 6 {
		t.Fatalf("%d cases in %s, want the 6 of its README", len(ids), templatesReal)
	}
	return ids
}

func TestRealTemplatesRenderOfflineAsCommitted(t *testing.T) {
	for _, id := range realTemplateIDs(t) {
		t.Run(id, func(t *testing.T) {
			c := realTemplate(t, id)
			args := append([]string{"render-template", c.template, "-o", "yaml", "--bundles-from", c.bundlesFrom}, c.pipelineFlags...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want, err := os.ReadFile(c.catalog)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("the rendered catalog differs from the committed one:\n%s", firstDifference(stdout, string(want)))
			}
			if strings.Contains(stderr, "warning") || strings.Contains(stderr, "pulled") {
				t.Errorf("every bundle is in the catalog, yet stderr says:\n%s", stderr)
			}
		})
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n  got:  %s\n  want: %s", i+1, abbreviate(g[i]), abbreviate(w[i]))
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

func abbreviate(s string) string {
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}

// Without --migrate-level, opm renders a bundle image's manifests (olm.bundle.object): the
// olm.csv.metadata bundles of the catalog are not what it would print, so they are not taken. Offline
// that is exit 2 (1 for render-template, as opm) naming every bundle and --migrate-level as the fix,
// in the same words from each command; with the flag the same bundles are taken.
func TestBundlesFromInAnotherFormAreNotTaken(t *testing.T) {
	c := realTemplate(t, "dotvirt-operator__semver.yaml__v4.18")
	const fix = "--migrate-level bundle-object-to-csv-metadata only: give that flag"
	images := []string{"dotvirt-operator:0.0.27", "dotvirt-operator:0.0.28", "dotvirt-operator:0.0.29", "dotvirt-operator:0.0.32"}
	var sentences []string
	for _, run := range []struct {
		args []string
		code int
	}{
		{[]string{"render-template", c.template, "--bundles-from", c.bundlesFrom}, 1},
		{[]string{"validate", c.template, "--bundles-from", c.bundlesFrom}, 2},
		{[]string{"diff", c.bundlesFrom, c.template, "--bundles-from", c.bundlesFrom}, 2},
	} {
		code, stdout, stderr := runCLI(t, run.args...)
		if code != run.code || stdout != "" {
			t.Errorf("%s: exit %d, want %d; stdout %q", run.args[0], code, run.code, stdout)
		}
		if !strings.Contains(stderr, "4 images: ") || !strings.Contains(stderr, fix) || !strings.Contains(stderr, "as olm.csv.metadata") {
			t.Errorf("%s: stderr does not name the 4 bundles, their form and --migrate-level:\n%s", run.args[0], stderr)
		}
		for _, img := range images {
			if !strings.Contains(stderr, offlineRegistry+"/community-operator-pipeline-prod/"+img) {
				t.Errorf("%s: stderr does not name %s:\n%s", run.args[0], img, stderr)
			}
		}
		_, sentence, _ := strings.Cut(stderr, c.template+": bundle images could not be read: ")
		sentence, _, _ = strings.Cut(sentence, "\n")
		sentences = append(sentences, strings.TrimSuffix(sentence, "; nothing was written"))
	}
	for i := 1; i < len(sentences); i++ {
		if sentences[i] != sentences[0] {
			t.Errorf("the commands word the same problem differently:\n%s\n%s", sentences[0], sentences[i])
		}
	}
	code, stdout, stderr := runCLI(t, "diff", c.catalog, c.template, "--bundles-from", c.bundlesFrom, "--migrate-level", "bundle-object-to-csv-metadata")
	if code != 0 || !strings.Contains(stdout, "NO CHANGES") {
		t.Errorf("diff --migrate-level: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// An offline render names every image it could not get, not the first: one sentence with the count
// and the list, the same from render-template, validate and diff.
func TestOfflineRenderNamesEveryMissingImage(t *testing.T) {
	c := realTemplate(t, "alloydb-omni-operator__basic.yaml__v4.17")
	// The catalog keeps 8 of its 11 bundles: the other 3 are to be pulled, from nowhere.
	var kept, dropped []string
	var buf bytes.Buffer
	catalog, err := os.ReadFile(c.catalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.SplitAfter(string(catalog), "\n---\n") {
		if strings.Contains(doc, "schema: olm.bundle\n") {
			_, image, _ := strings.Cut("\n"+doc, "\nimage: ")
			image, _, _ = strings.Cut(image, "\n")
			if len(dropped) < 3 {
				dropped = append(dropped, image)
				continue
			}
			kept = append(kept, image)
		}
		buf.WriteString(doc)
	}
	if len(dropped) != 3 || len(kept) != 8 {
		t.Fatalf("the catalog has %d bundles, want 11", len(dropped)+len(kept))
	}
	writeFile(t, c.catalog, buf.String())
	var sentences []string
	for _, args := range [][]string{
		{"render-template", c.template},
		{"validate", c.template},
		{"diff", c.catalog, c.template},
	} {
		args = append(args, append([]string{"--bundles-from", c.bundlesFrom}, c.pipelineFlags...)...)
		code, _, stderr := runCLI(t, args...)
		want := 2
		if args[0] == "render-template" {
			want = 1 // opm's exit code
		}
		if code != want {
			t.Errorf("%s: exit %d, want %d", args[0], code, want)
		}
		_, sentence, ok := strings.Cut(stderr, "olmcat: "+c.template+": bundle images could not be read: 3 images: ")
		sentence, _, _ = strings.Cut(sentence, "\n")
		list, _, _ := strings.Cut(sentence, " ("+offlineRegistry+": ")
		if got := strings.Split(list, ", "); !ok || len(got) != 3 || !slices.Contains(got, dropped[0]) || !slices.Contains(got, dropped[1]) || !slices.Contains(got, dropped[2]) {
			t.Errorf("%s: stderr does not name the 3 missing images %v in one sentence:\n%s", args[0], dropped, stderr)
		}
		for _, image := range kept {
			if strings.Contains(stderr, image+" ") || strings.Contains(stderr, image+",") {
				t.Errorf("%s: names %s, which the catalog has:\n%s", args[0], image, stderr)
			}
		}
		sentences = append(sentences, strings.TrimSuffix(sentence, "; nothing was written"))
	}
	for i := 1; i < len(sentences); i++ {
		if sentences[i] != sentences[0] {
			t.Errorf("the commands word the same problem differently:\n%s\n%s", sentences[0], sentences[i])
		}
	}
}

// A bundle-removal review: the old template names a bundle only the old catalog has, the new one is
// rendered from the new catalog. Both catalogs are given (--bundles-from twice), each opened once;
// with the new catalog only, the removed bundle cannot be had offline.
func TestRemovalDiffTakesBundlesFromTwoCatalogs(t *testing.T) {
	c := realTemplate(t, "dotvirt-operator__semver.yaml__v4.18")
	tmpl, err := os.ReadFile(c.template)
	if err != nil {
		t.Fatal(err)
	}
	removed := offlineRegistry + "/community-operator-pipeline-prod/dotvirt-operator:0.0.27"
	if !strings.Contains(string(tmpl), removed+"\n") {
		t.Fatalf("%s does not name %s", c.template, removed)
	}
	var lines []string
	for _, l := range strings.SplitAfter(string(tmpl), "\n") {
		if !strings.HasSuffix(l, removed+"\n") {
			lines = append(lines, l)
		}
	}
	newTemplate := filepath.Join(c.dir, "new", "semver.yaml")
	if err := os.MkdirAll(filepath.Dir(newTemplate), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, newTemplate, strings.Join(lines, ""))
	// The new catalog, as the pipeline renders the new template.
	code, newCatalog, stderr := runCLI(t, append([]string{"render-template", newTemplate, "-o", "yaml", "--bundles-from", c.bundlesFrom}, c.pipelineFlags...)...)
	if code != 0 {
		t.Fatalf("rendering the new template: exit %d: %s", code, stderr)
	}
	if strings.Contains(newCatalog, removed) {
		t.Fatal("the new catalog has the removed bundle")
	}
	newDir := filepath.Join(c.dir, "new-catalog", "dotvirt-operator")
	if err := os.MkdirAll(newDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(newDir, "catalog.yaml"), newCatalog)

	code, _, stderr = runCLI(t, append([]string{"diff", c.template, newTemplate, "--bundles-from", newDir}, c.pipelineFlags...)...)
	if code != 2 || !strings.Contains(stderr, "bundle images could not be read: 1 image: "+removed+" (") {
		t.Errorf("with the new catalog only: exit %d, want 2 naming %s:\n%s", code, removed, stderr)
	}
	code, stdout, stderr := runCLI(t, append([]string{"diff", c.template, newTemplate, "--bundles-from", newDir, "--bundles-from", c.bundlesFrom}, c.pipelineFlags...)...)
	if code == 2 || !strings.Contains(stdout, "dotvirt-operator.v0.0.27") {
		t.Errorf("with both catalogs: exit %d, the diff does not show the removed bundle:\n%s%s", code, stdout, stderr)
	}
	if want := "olmcat: 4 bundle images: 3 from " + newDir + ", 1 from " + c.bundlesFrom + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "hold it differently") {
		t.Errorf("the two catalogs hold the same bundles alike, yet:\n%s", stderr)
	}
}

// --migrate-level is a flag of every command that reads a template as a catalog, as of
// render-template, render and migrate: the commands that read and print take the template's
// csv-metadata bundles from its catalog with it; serve and compat parse it as the others.
func TestMigrateLevelOnEveryCommand(t *testing.T) {
	c := realTemplate(t, "dotvirt-operator__semver.yaml__v4.18")
	level := []string{"--bundles-from", c.bundlesFrom, "--migrate-level", "bundle-object-to-csv-metadata"}
	for _, args := range [][]string{
		{"validate", c.template},
		{"diff", c.catalog, c.template},
		{"graph", c.template},
		{"inspect", "packages", c.template},
		{"inspect", "package", c.template, "dotvirt-operator"},
		{"render", c.template},
	} {
		code, stdout, stderr := runCLI(t, append(args, level...)...)
		if code != 0 || (stdout == "" && args[0] != "validate") || strings.Contains(stderr, "pulled") || !strings.Contains(stderr, "4 bundle images: 4 from") {
			t.Errorf("%s: exit %d, stdout %d bytes:\n%s", strings.Join(args[:len(args)-1], " "), code, len(stdout), stderr)
		}
	}
	for _, args := range [][]string{{"serve", c.template}, {"compat", c.catalog, c.template}} {
		code, _, stderr := runCLI(t, append(args, "--migrate-level", "bogus")...)
		if code != 2 || !strings.Contains(stderr, `unknown migration level "bogus"`) {
			t.Errorf("%s --migrate-level bogus: exit %d:\n%s", args[0], code, stderr)
		}
	}
}
