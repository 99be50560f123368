package main

import (
	"os"
	"path/filepath"
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

	code, out, errs := runCLI(t, "validate", newFile, "--bundles-from", published)
	if code != exitFindings || !strings.Contains(out, `duplicate bundle "jumpstarter-operator.v0.9.0"`) {
		t.Fatalf("validate: exit %d, want 1 for the duplicate bundle\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "diff", oldFile, newFile, "--bundles-from", published, "--fail-on", "any")
	if code != exitFindings || strings.Contains(out, "NO CHANGES") || !strings.Contains(out, "duplicate-bundle") ||
		!strings.Contains(errs, "1 breaking finding (--fail-on any)") {
		t.Errorf("diff: exit %d, want 1 and the duplicate bundle as a breaking finding\n%s\n%s", code, out, errs)
	}
	// The template against itself: no change.
	if code, out, errs = runCLI(t, "diff", oldFile, oldFile, "--bundles-from", published, "--fail-on", "any"); code != 0 {
		t.Errorf("diff of the template with itself: exit %d\n%s\n%s", code, out, errs)
	}
}
