package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TMPDIR inside the catalog is refused (temporary files would land in the input and be read as
// part of it); a TMPDIR that merely contains the catalog is the usual case and is fine.
func TestCheckScratch(t *testing.T) {
	root := t.TempDir()
	cat := filepath.Join(root, "cat")
	if err := os.MkdirAll(filepath.Join(cat, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cat, "pkg", "c.json"), []byte(`{"schema":"olm.package","name":"pkg"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, dir := range []string{cat, filepath.Join(cat, "tmp"), filepath.Join(cat, "pkg")} {
		if err := CheckScratch(dir, "TMPDIR", src); err == nil || !IsInputError(err) {
			t.Errorf("TMPDIR %s inside the catalog: %v, want an input error", dir, err)
		}
	}
	if err := CheckScratch(root, "TMPDIR", src); err != nil {
		t.Errorf("TMPDIR holding the catalog: %v", err)
	}
	found := false
	for _, p := range OpenedInputs() {
		found = found || p == cat
	}
	if !found {
		t.Errorf("OpenedInputs %v does not list %s", OpenedInputs(), cat)
	}
}
