package atomicout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/scratch"
)

// scratch.RemoveAll stands for the signal handler: it may run at any moment.

func TestScratchRemovesUncommittedOutput(t *testing.T) {
	parent := t.TempDir()
	dir, err := Dir(filepath.Join(parent, "out"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Abort()
	writeIn(t, "partial")(dir.Path())
	file, err := File(filepath.Join(parent, "index.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Abort()
	writeData(t, "partial")(file.Path())
	scratch.RemoveAll()
	if got := entries(t, parent); len(got) != 0 {
		t.Errorf("after a signal, parent holds %v", got)
	}

	asMountPoint(t)
	_, out, _ := volume(t)
	inPlace, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	defer inPlace.Abort()
	writeTree(t)(inPlace.Path())
	scratch.RemoveAll()
	if got := entries(t, out); !slices.Equal(got, []string{"old"}) {
		t.Errorf("after a signal, the mount point holds %v, want [old]", got)
	}
}

func TestScratchKeepsCommittedOutput(t *testing.T) {
	parent, out, target := replaceDir(t)
	if err := target.Commit(); err != nil {
		t.Fatal(err)
	}
	file, err := File(filepath.Join(parent, "index.db"), false)
	mustCommit(t, file, err, writeData(t, "db"))
	scratch.RemoveAll()
	if got := entries(t, out); !slices.Equal(got, []string{"new"}) {
		t.Errorf("after a signal, output holds %v", got)
	}
	if got := entries(t, parent); !slices.Equal(got, []string{"index.db", "out"}) {
		t.Errorf("after a signal, parent holds %v", got)
	}
}

// signalOnRename runs scratch.RemoveAll just before renames into dest, as a signal would.
func signalOnRename(t *testing.T, dest func(to string) bool) {
	orig := rename
	t.Cleanup(func() { rename = orig })
	rename = func(from, to string) error {
		if dest(to) {
			scratch.RemoveAll()
		}
		return orig(from, to)
	}
}

func TestSignalDuringSwapDeletesNeitherCopy(t *testing.T) {
	_, out, target := replaceDir(t)
	signalOnRename(t, func(to string) bool { return to == out })
	if err := target.Commit(); err != nil {
		t.Fatalf("a signal between the renames deleted the new output: %v", err)
	}
	if got := entries(t, out); !slices.Equal(got, []string{"new"}) {
		t.Errorf("output holds %v", got)
	}
}

func TestSignalDuringInPlaceMovesDeletesNeitherCopy(t *testing.T) {
	asMountPoint(t)
	_, out, _ := volume(t)
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t)(target.Path())
	signalOnRename(t, func(to string) bool { return filepath.Dir(to) == out || strings.Contains(to, ".olmcat-old-") })
	if err := target.Commit(); err != nil {
		t.Fatalf("a signal while moving entries deleted some: %v", err)
	}
	assertTree(t, out)
}

func TestPreviousCopyIsScratchOnceReplaced(t *testing.T) {
	orig := removeAll
	t.Cleanup(func() { removeAll = orig })
	var signalled bool
	removeAll = func(path string) error {
		if strings.HasSuffix(path, ".old") {
			scratch.RemoveAll() // the signal comes while the previous copy is being deleted
			_, err := os.Stat(path)
			signalled = os.IsNotExist(err)
		}
		return orig(path)
	}
	parent, out, target := replaceDir(t)
	if err := target.Commit(); err != nil {
		t.Fatal(err)
	}
	if !signalled {
		t.Error("the previous copy was not tracked while being deleted")
	}
	if got := entries(t, out); !slices.Equal(got, []string{"new"}) {
		t.Errorf("output holds %v", got)
	}
	if got := entries(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v", got)
	}
}
