package source_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/internal/source"
)

// Same tells whether one opened source can serve two references: the same local path however
// spelled, the same image reference; never standard input.
func TestRefSame(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog")
	if err := os.MkdirAll(catalog, 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relative, err := filepath.Rel(wd, catalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{catalog, catalog, true},
		{catalog, catalog + "/", true},
		{catalog, filepath.Join(dir, ".", "other", "..", "catalog"), true},
		{catalog, relative, true},
		{catalog, other, false},
		{"quay.io/ns/index:v4.18", "quay.io/ns/index:v4.18", true},
		{"quay.io/ns/index:v4.18", "quay.io/ns/index:v4.17", false},
		{"git:HEAD:" + catalog, "git:HEAD:" + catalog, true},
		{"git:HEAD:" + catalog, "git:HEAD~1:" + catalog, false},
		{"git:HEAD:" + catalog, catalog, false},
		{"-", "-", false},
	} {
		a, err := source.Parse(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := source.Parse(c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Same(b); got != c.same {
			t.Errorf("Same(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
