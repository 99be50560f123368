//go:build linux

package atomicout

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/internal/scratch"
)

// The temporary paths of an output that a killed run left (nobody holds them locked) are removed
// by the next run that writes the same output; those of a run still writing it are not, nor a
// previous output moved aside (.old).
func TestStaleTemporariesOfTheOutputAreRemoved(t *testing.T) {
	for _, dir := range []bool{false, true} {
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		dead := filepath.Join(parent, ".out.tmp-111")
		aside := filepath.Join(parent, ".out.tmp-222.old")
		for _, p := range []string{dead, aside} {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		live, unlock, err := scratch.MkdirTempLocked(parent, ".out.tmp-")
		if err != nil {
			t.Fatal(err)
		}
		var target *Target
		if dir {
			target, err = Dir(out, false)
		} else {
			target, err = File(out, false)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !dir {
			if err := os.WriteFile(target.Path(), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := target.Commit(); err != nil {
			t.Fatal(err)
		}
		unlock()
		if _, err := os.Stat(dead); !os.IsNotExist(err) {
			t.Errorf("dir=%v: the stale %s is still there (%v)", dir, dead, err)
		}
		for _, p := range []string{live, aside, out} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("dir=%v: %s was removed: %v", dir, p, err)
			}
		}
		entries, _ := os.ReadDir(parent)
		if len(entries) != 3 {
			t.Errorf("dir=%v: left %d entries, want out, the live temporary and the .old", dir, len(entries))
		}
	}
}
