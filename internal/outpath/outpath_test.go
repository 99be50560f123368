package outpath

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
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

// Names equal after Unicode normalization are one name on macOS (APFS, HFS+), whether composed
// (NFC) or decomposed (NFD), alone or together with a difference in case.
func TestNamesCollideAfterNormalization(t *testing.T) {
	for _, tc := range []struct{ first, second, reason string }{
		{"caf\u00e9", "cafe\u0301", "normalizes Unicode"},
		{"cafe\u0301", "caf\u00e9", "normalizes Unicode"},
		{"\u212bngstrom", "\u00c5ngstrom", "normalizes Unicode"},     // the Angstrom sign is canonically Å
		{"\u1e69op", "s\u0323\u0307op", "normalizes Unicode"},        // ṩ: one composed rune, two marks
		{"s\u0307\u0323op", "s\u0323\u0307op", "normalizes Unicode"}, // the same marks in the other order
		{"caf\u00e9", "CAFE\u0301", "case-insensitive file system that normalizes Unicode"},
		{"CAF\u00c9", "cafe\u0301", "case-insensitive file system that normalizes Unicode"},
	} {
		var n Names
		if _, err := n.Join("/out", Package, tc.first, ""); err != nil {
			t.Fatalf("%+q: %v", tc.first, err)
		}
		_, err := n.Join("/out", Package, tc.second, "c.json:7")
		var ne *NameError
		if !errors.As(err, &ne) || ne.Other != tc.first || !strings.Contains(err.Error(), tc.reason) ||
			!strings.Contains(err.Error(), "c.json:7") || !strings.Contains(err.Error(), strings.Trim(fmt.Sprintf("%+q", tc.second), `"`)) {
			t.Errorf("%+q after %+q: %v, want a collision with the first, saying %q and spelling both names out", tc.second, tc.first, err, tc.reason)
		}
	}
	// Different names stay different: an accent is not dropped, and a compatibility form (the fi
	// ligature) is another name on every file system.
	var n Names
	for _, name := range []string{"cafe", "caf\u00e9", "caf\u00e8", "\ufb01le", "file"} {
		if _, err := n.Join("/out", Package, name, ""); err != nil {
			t.Errorf("%+q: %v", name, err)
		}
	}
}

// FuzzJoin: whatever the name, an accepted one is exactly one component directly inside dir, and
// no spelling of it that a case-insensitive or normalizing file system takes for the same name
// (another case, NFC, NFD) is accepted after it.
func FuzzJoin(f *testing.F) {
	for _, s := range []string{"etcd", "..", "a/b", "a\x00", "", "\u212a", ".hidden", "...",
		"caf\u00e9", "cafe\u0301", "CAF\u00c9", "\u212bngstrom", "s\u0307\u0323", "\u1e69", "\u0345\u0313", "\ufb01le"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		dir := filepath.Join("/", "out")
		var n Names
		p, err := n.Join(dir, Package, name, "")
		if err != nil {
			return
		}
		if filepath.Dir(p) != dir || filepath.Base(p) != name || !filepath.IsLocal(name) {
			t.Fatalf("Join(%q) = %q: not one component inside %s", name, p, dir)
		}
		for _, same := range []string{name, norm.NFC.String(name), norm.NFD.String(name), strings.ToUpper(name), strings.ToLower(name),
			norm.NFD.String(strings.ToUpper(name)), norm.NFC.String(strings.ToLower(name))} {
			if !strings.EqualFold(norm.NFD.String(same), norm.NFD.String(name)) || Check(same) != "" {
				continue // ToUpper and ToLower are not always a case folding
			}
			if _, err := n.Join(dir, Package, same, ""); err == nil {
				t.Fatalf("%+q accepted after %+q: the same file on a case-insensitive, normalizing file system", same, name)
			}
		}
	})
}
