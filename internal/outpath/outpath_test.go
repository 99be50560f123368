package outpath

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestJoinRefuses(t *testing.T) {
	for _, tc := range []struct{ name, reason string }{
		{"", "empty"},
		{".", "directory of the file system"},
		{"..", "directory of the file system"},
		{"../../../victim", "path separator"},
		{"a/../b", "path separator"},
		{"operator-001/../operator-002", "path separator"},
		{`a\b`, "path separator"},
		{"/etc", "path separator"},
		{"op\x00x", "NUL"},
		{"op\nx", "control character"},
		{strings.Repeat("a", maxName+1), "bytes long"},
	} {
		_, err := Join("/out", Package, tc.name, "c.json:3")
		var ne *NameError
		if !errors.As(err, &ne) || !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), "c.json:3") {
			t.Errorf("Join(%q) = %v, want a NameError saying %q and naming c.json:3", tc.name, err, tc.reason)
		}
	}
}

func TestNamesCollide(t *testing.T) {
	var n Names
	n.Reserve("catalog.json")
	if _, err := n.Join("/out", Package, "catalog.json", ""); err == nil {
		t.Error("a package named after the writer's own file was accepted")
	}
	if p, err := n.Join("/out", Package, "etcd", ""); err != nil || p != filepath.Join("/out", "etcd") {
		t.Fatalf("etcd: %q, %v", p, err)
	}
	for _, dup := range []string{"etcd", "ETCD", "Etcd"} {
		_, err := n.Join("/out", Package, dup, "")
		if err == nil || !strings.Contains(err.Error(), `same file as "etcd"`) {
			t.Errorf("%q after etcd: %v, want a collision", dup, err)
		}
	}
	// Case folding beyond ASCII: the Kelvin sign folds to k.
	if _, err := n.Join("/out", Package, "\u212aube", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Join("/out", Package, "kube", ""); err == nil {
		t.Error("kube after \\u212aube (Kelvin sign) was accepted; they are one name on a case-insensitive file system")
	}
}

// FuzzJoin: whatever the name, an accepted one is exactly one component directly inside dir.
func FuzzJoin(f *testing.F) {
	for _, s := range []string{"etcd", "..", "a/b", "a\x00", "", "\u212a", ".hidden", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		dir := filepath.Join("/", "out")
		p, err := Join(dir, Package, name, "")
		if err != nil {
			return
		}
		if filepath.Dir(p) != dir || filepath.Base(p) != name || !filepath.IsLocal(name) {
			t.Fatalf("Join(%q) = %q: not one component inside %s", name, p, dir)
		}
	})
}
