package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// render, validate and serve take an index image wherever they take a catalog path.
func TestImageInputsOfRenderValidateServe(t *testing.T) {
	ref := pushFooIndexImage(t)
	want, err := os.ReadFile(filepath.Join(fooIndexCase, "migrate", "foo", "catalog.json"))
	if err != nil {
		t.Skipf("conformance data absent: %v", err)
	}
	code, stdout, stderr := runCLI(t, "render", ref)
	if code != 0 || stdout != string(want) {
		t.Fatalf("render %s: exit %d, stderr %s; output equal to opm's migrate: %v", ref, code, stderr, stdout == string(want))
	}
	if code, stdout, stderr := runCLI(t, "validate", ref); code != 0 || !strings.Contains(stdout+stderr, "valid") {
		t.Errorf("validate %s: exit %d\n%s%s", ref, code, stdout, stderr)
	}
	cache := t.TempDir()
	if code, _, stderr := runCLI(t, "serve", ref, "--cache-dir", filepath.Join(cache, "c"), "--cache-only", "-t", ""); code != 0 {
		t.Errorf("serve --cache-only %s: exit %d\n%s", ref, code, stderr)
	}
	if code, _, stderr := runCLI(t, "render", "localhost:1/ns/missing:v1"); code != 2 || stderr == "" {
		t.Errorf("render of an unreachable image: exit %d, stderr %q; want 2 and a message", code, stderr)
	}
}
