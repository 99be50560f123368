package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A basic template (community-operators-prod's jumpstarter-operator) that names one bundle image
// twice: validate fails on the duplicate bundle, and diff against the template as it was finds it
// (a problem of the new side is a finding, as diff --help says), so --fail-on any fails too.
func TestDiffFindsADuplicateBundleOfATemplate(t *testing.T) {
	withTemplateRenderer(t)
	real := conformanceCase(t, "templates-real/jumpstarter-operator__basic.yaml__v4.20")
	published := filepath.Join(real, "catalog", "jumpstarter-operator")
	text, err := os.ReadFile(filepath.Join(real, "catalog-templates", "basic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const image = "quay.io/community-operator-pipeline-prod/jumpstarter-operator:0.9.0"
	if !strings.Contains(string(text), "image: "+image+"\n") {
		t.Fatalf("the template does not name %s", image)
	}
	dir := t.TempDir()
	oldFile, newFile := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
	writeFile(t, oldFile, string(text))
	writeFile(t, newFile, string(text)+"- schema: olm.bundle\n  image: "+image+"\n")

	// The catalog holds its bundles as olm.csv.metadata, as the pipeline renders them.
	level := []string{"--bundles-from", published, "--migrate-level", "bundle-object-to-csv-metadata"}
	code, out, errs := runCLI(t, append([]string{"validate", newFile}, level...)...)
	if code != exitFindings || !strings.Contains(out, `duplicate bundle "jumpstarter-operator.v0.9.0"`) {
		t.Fatalf("validate: exit %d, want 1 for the duplicate bundle\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, append([]string{"diff", oldFile, newFile, "--fail-on", "any"}, level...)...)
	if code != exitFindings || strings.Contains(out, "NO CHANGES") || !strings.Contains(out, "duplicate-bundle") ||
		!strings.Contains(errs, "1 breaking finding (--fail-on any)") {
		t.Errorf("diff: exit %d, want 1 and the duplicate bundle as a breaking finding\n%s\n%s", code, out, errs)
	}
	// The template against itself: no change.
	if code, out, errs = runCLI(t, append([]string{"diff", oldFile, oldFile, "--fail-on", "any"}, level...)...); code != 0 {
		t.Errorf("diff of the template with itself: exit %d\n%s\n%s", code, out, errs)
	}
}

// A template whose schema is misspelled is no catalog of one custom blob, valid: every command
// refuses it with exit 2 and the same sentence, naming the file, the schema and the one meant.
func TestMisspelledTemplateExits2(t *testing.T) {
	withTemplateRenderer(t)
	real := conformanceCase(t, "templates-real/jumpstarter-operator__basic.yaml__v4.20")
	text, err := os.ReadFile(filepath.Join(real, "catalog-templates", "basic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "basic.yaml")
	writeFile(t, file, strings.Replace(string(text), "schema: olm.template.basic", "schema: olm.template.basik", 1))
	want := "olmcat: " + file + `: bad catalog template: its first document has schema "olm.template.basik" (line 2), which is no catalog schema: it is probably the template schema olm.template.basic misspelled`
	published := filepath.Join(real, "catalog", "jumpstarter-operator")
	for _, args := range [][]string{{"validate", file}, {"diff", published, file, "--fail-on", "any"}, {"graph", file}, {"render", file}} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, "(write schema: olm.template.basic)") {
			t.Errorf("%v: exit %d, stdout %q, want 2 and\n%s\ngot\n%s", args, code, out, want, errs)
		}
	}
}

// Every problem validate reports on an index.db (its catalog's, and where olmcat's conversion
// departs from opm migrate) is a problem of that side in diff: compared with itself, a side counts
// as many problems as validate reports.
func TestDiffSideCountsValidateProblemsOfIndexDBs(t *testing.T) {
	conformanceCase(t, "sqlite")
	dbs, _ := filepath.Glob(filepath.Join(conformance, "sqlite", "*", "input.db"))
	pairs, _ := filepath.Glob(filepath.Join(conformance, "..", "diffpairs", "sqlite", "*", "*.db"))
	dbs = append(dbs, pairs...)
	if len(dbs) < 10 {
		t.Fatalf("only %d index.db files found", len(dbs))
	}
	withProblems := 0
	for _, db := range dbs {
		code, out, errs := runCLI(t, "validate", db, "-o", "json")
		var v struct{ Issues []struct{ Rule string } }
		if err := json.Unmarshal([]byte(out), &v); err != nil || code == 2 {
			t.Errorf("validate %s: exit %d: %v\n%s", db, code, err, errs)
			continue
		}
		// requirement-not-in-catalog looks across packages and is validate's alone (info); diff
		// reports head-requirement-not-in-catalog when a head gains one.
		// OLM v1's review (what OLM v1 picks) is validate's too: diff compares OLM v1's picks of
		// both sides itself (v1-install-*, v1-upgrade-*); OLM v1's install check is both's.
		v.Issues = slices.DeleteFunc(v.Issues, func(i struct{ Rule string }) bool {
			return i.Rule == "requirement-not-in-catalog" || i.Rule == "v1-installs-prerelease" || i.Rule == "v1-left-behind" || i.Rule == "v1-duplicate-version"
		})
		code, out, errs = runCLI(t, "diff", db, db, "-o", "json")
		var d struct{ Old, New struct{ Problems int } }
		if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 {
			t.Errorf("diff %s with itself: exit %d: %v\n%s", db, code, err, errs)
			continue
		}
		if d.Old.Problems != len(v.Issues) || d.New.Problems != len(v.Issues) {
			t.Errorf("%s: diff counts %d and %d problems, validate reports %d", db, d.Old.Problems, d.New.Problems, len(v.Issues))
		}
		if len(v.Issues) > 0 {
			withProblems++
		}
	}
	if withProblems == 0 {
		t.Errorf("no index.db with a problem: the test shows nothing")
	}
}
