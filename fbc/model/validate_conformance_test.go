package model

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

const conformanceDir = "../../../shared/conformance"

// validateDir is what olmcat validate does: one streaming pass, load problems as issues.
func validateDir(t *testing.T, dir string, opts Options) Issues {
	t.Helper()
	v := NewValidator(opts)
	issues, err := v.Finish(fbc.Walk(dir, v.Add))
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return issues
}

func conformanceRoot(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("conformance corpus not found at %s (it lives in /work/shared/conformance): %v", conformanceDir, err)
	}
	return conformanceDir
}

var opmExitCode = regexp.MustCompile(`exit code: (\d+)`)

// Where our report differs from opm validate's on purpose. verdictDiffers marks a different exit
// code (none today); rule names an issue we must report that opm does not.
var deliberateDifferences = map[string]struct {
	verdictDiffers bool
	rule           string
	why            string
}{
	"invalid/unknown-schema-with-slash": {rule: "custom-schema-name",
		why: "same verdict (opm validate exits 0), plus a warning: opm serve refuses the schema name; --strict makes it fail"},
	"invalid/bundle-of-unknown-package": {rule: "package-property-mismatch",
		why: "opm stops at the unknown package; we also report that the bundle's package field disagrees with its olm.package property"},
	"invalid/bad-yaml": {rule: "package-not-checked",
		why: "opm prints the YAML error without a file; we locate it and say which package's graph checks were skipped"},
	"invalid/malformed-json": {rule: "package-not-checked",
		why: "opm prints only 'unexpected EOF'; we locate it and say which package's graph checks were skipped"},
	"invalid/deprecations-name-missing-items": {rule: "deprecation-unknown-bundle",
		why: "opm stops at the first missing item; we report the missing channel and the missing bundle"},
	"fbc/community-v4.20-csvmetadata-subset": {rule: "unreachable-from-head",
		why: "opm accepts it; clusterpulse and kubernaut-operator have bundles whose only upgrade goes to a skipped bundle (warnings)"},
	"fbc/custom-schema-blobs": {rule: "skipped-on-replaces-chain",
		why: "opm accepts it; ecr-secret-operator.v0.4.0 is skipped but still replaces v0.3.2, a dead edge (warning)"},
}

// opmKeyWords are the words of opm's message that ours must contain, so users recognise it.
var opmKeyWords = map[string][]string{
	"invalid/bad-semver-version":              {`error parsing bundle "demo.v1.2.0" version "1.2"`, "No Major.Minor.Patch elements found"},
	"invalid/bad-skiprange":                   {`invalid channel "stable"`, `invalid bundle "demo.v1.2.0"`, `invalid skipRange "this is not a range"`, `Could not get version from string: "this"`},
	"invalid/bad-yaml":                        {"did not find expected '-' indicator"},
	"invalid/bundle-of-unknown-package":       {`unknown package "other" for bundle "demo.v1.0.0"`},
	"invalid/cycle-in-replaces":               {`invalid channel "stable"`, "no channel head found in graph"},
	"invalid/default-channel-not-found":       {`invalid channel "fast"`, "channel must contain at least one bundle"},
	"invalid/deprecations-name-missing-items": {`cannot deprecate channel "no-such-channel" for package "demo": channel not found`},
	"invalid/duplicate-bundle":                {`package "demo" has duplicate bundle "demo.v1.1.0"`},
	"invalid/duplicate-package":               {`duplicate package "demo"`},
	"invalid/entry-names-missing-bundle":      {`no olm.bundle blobs found in package "demo" for olm.channel entries [demo.v1.3.0]`},
	"invalid/malformed-json":                  {"unexpected EOF"},
	"invalid/missing-default-channel":         {"default channel must be set"},
	"invalid/stranded-bundle":                 {`invalid channel "stable"`, "channel contains one or more stranded bundles: demo.v0.9.0"},
	"invalid/two-channel-heads":               {"multiple channel heads found in graph: demo.v1.1.0, demo.v1.2.0"},
	"invalid/unknown-schema-with-slash":       {`invalid schema "example.com/custom"`, "must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$"},
}

// TestConformanceVerdicts runs every invalid/* and fbc/* case of the corpus and compares our
// verdict with opm validate's (validate.txt), and our messages with opm's wording.
func TestConformanceVerdicts(t *testing.T) {
	root := conformanceRoot(t)
	var cases []string
	for _, group := range []string{"invalid", "fbc"} {
		dirs, _ := filepath.Glob(filepath.Join(root, group, "*", "validate.txt"))
		for _, d := range dirs {
			cases = append(cases, filepath.Join(group, filepath.Base(filepath.Dir(d))))
		}
	}
	if len(cases) == 0 {
		t.Fatal("no conformance cases found")
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(root, name, "validate.txt"))
			if err != nil {
				t.Fatal(err)
			}
			m := opmExitCode.FindSubmatch(text)
			if m == nil {
				t.Fatalf("no exit code in validate.txt")
			}
			opmFails := string(m[1]) != "0"
			issues := validateDir(t, filepath.Join(root, name, "catalog"), Options{})
			weFail := issues.Err() != nil
			diff, differs := deliberateDifferences[name]
			if weFail != opmFails && !diff.verdictDiffers {
				t.Errorf("opm fails=%v, we fail=%v; our issues:\n%v", opmFails, weFail, issues)
			}
			if differs {
				found := false
				for _, i := range issues {
					found = found || i.Rule == diff.rule
				}
				if !found {
					t.Errorf("documented difference (%s) not seen: no %s issue in\n%v", diff.why, diff.rule, issues)
				}
			}
			all := issues.Error()
			for _, w := range opmKeyWords[name] {
				if !strings.Contains(all, w) {
					t.Errorf("opm's words %q missing from our report:\n%s", w, all)
				}
			}
			for _, i := range issues {
				if i.File == "" && i.Rule != "load-more" {
					t.Errorf("issue without a file: %v", i)
				}
				if i.Hint == "" {
					t.Errorf("issue without a fix hint: %v", i)
				}
			}
			if testing.Verbose() {
				t.Logf("our report:\n%s", all)
			}
		})
	}
}

// TestMigrateOutputsValidate: every FBC opm migrate wrote (sqlite/*/migrate*) is a catalog opm
// accepts, so it must give no error.
func TestMigrateOutputsValidate(t *testing.T) {
	root := conformanceRoot(t)
	dirs, _ := filepath.Glob(filepath.Join(root, "sqlite", "*", "migrate*"))
	n := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		n++
		name, _ := filepath.Rel(root, dir)
		t.Run(name, func(t *testing.T) {
			issues := validateDir(t, dir, Options{})
			if errs := issues.Errors(); len(errs) > 0 {
				t.Errorf("opm-accepted catalog gives errors:\n%v", errs)
			}
			if w := issues.Warnings(); len(w) > 0 {
				t.Logf("%d warnings:\n%v", len(w), w)
			}
		})
	}
	if n == 0 {
		t.Fatal("no sqlite/*/migrate* outputs found")
	}
}

// Callers reuse a blob's text once Add returns (olmcat validate hands it back to the loader):
// the validator must keep nothing that shares it. Scribbling over every blob after Add must not
// change a single issue, on every conformance catalog, valid or broken.
func TestValidatorKeepsNoBlobText(t *testing.T) {
	root := conformanceRoot(t)
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "*", "catalog"))
	if len(dirs) == 0 {
		t.Fatalf("no catalogs under %s", root)
	}
	for _, dir := range dirs {
		want := validateDir(t, dir, Options{})
		v := NewValidator(Options{})
		got, err := v.Finish(fbc.Walk(dir, func(b fbc.Blob) error {
			err := v.Add(b)
			for i := range b.Data {
				b.Data[i] = 'x'
			}
			return err
		}))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d issues once the blobs were overwritten, %d before", dir, len(got), len(want))
		}
		for i := range want {
			if got[i].Error() != want[i].Error() {
				t.Errorf("%s: issue %d changed once the blobs were overwritten:\n  %s\nwas\n  %s", dir, i, got[i], want[i])
			}
		}
	}
}
