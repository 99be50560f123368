package atomicout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// asMountPoint makes every existing output directory one that a rename cannot replace.
func asMountPoint(t *testing.T) {
	orig := cannotRename
	t.Cleanup(func() { cannotRename = orig })
	cannotRename = func(string) (bool, error) { return true, nil }
}

// volume makes parent/out holding one file, old, and returns its identity.
func volume(t *testing.T) (parent, out string, id os.FileInfo) {
	t.Helper()
	parent = t.TempDir()
	out = filepath.Join(parent, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, "old")(out)
	id, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	return parent, out, id
}

func assertSameDir(t *testing.T, out string, id os.FileInfo) {
	t.Helper()
	if now, err := os.Stat(out); err != nil || !os.SameFile(now, id) {
		t.Errorf("%s was replaced (%v); a mount point must be kept and filled", out, err)
	}
}

func writeTree(t *testing.T) func(string) {
	return func(dir string) {
		writeIn(t, "new")(dir)
		if err := os.Mkdir(filepath.Join(dir, "pkg"), 0o750); err != nil {
			t.Fatal(err)
		}
		writeIn(t, "catalog.json")(filepath.Join(dir, "pkg"))
		if err := os.Symlink("pkg/catalog.json", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
	}
}

func assertTree(t *testing.T, out string) {
	t.Helper()
	if got := entries(t, out); !slices.Equal(got, []string{"link", "new", "pkg"}) {
		t.Errorf("output holds %v, want [link new pkg]", got)
	}
	if data, err := os.ReadFile(filepath.Join(out, "link")); err != nil || string(data) != "catalog.json" {
		t.Errorf("output's link reads %q, %v", data, err)
	}
	if fi, err := os.Stat(filepath.Join(out, "pkg")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("output's pkg: %v, %v; want mode 0750", fi, err)
	}
}

func TestMountPointIsFilledInPlace(t *testing.T) {
	asMountPoint(t)
	parent, out, id := volume(t)
	if _, err := Dir(out, false); err == nil {
		t.Fatal("non-empty output accepted without force")
	}
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(target.Path(), filepath.Join(out, ".olmcat-tmp-")) {
		t.Errorf("temporary output %s is not inside the mount point", target.Path())
	}
	mustCommit(t, target, nil, writeTree(t))
	assertSameDir(t, out, id)
	assertTree(t, out)
	if got := entries(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v", got)
	}
}

func TestEmptyMountPointNeedsNoForce(t *testing.T) {
	asMountPoint(t)
	_, out, id := volume(t)
	if err := os.Remove(filepath.Join(out, "old")); err != nil {
		t.Fatal(err)
	}
	target, err := Dir(out, false)
	mustCommit(t, target, err, writeTree(t))
	assertSameDir(t, out, id)
	assertTree(t, out)
}

func TestMountPointAbortKeepsOldContent(t *testing.T) {
	asMountPoint(t)
	_, out, id := volume(t)
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t)(target.Path())
	target.Abort()
	assertSameDir(t, out, id)
	if got := entries(t, out); !slices.Equal(got, []string{"old"}) {
		t.Errorf("output holds %v after Abort, want [old]", got)
	}
}

func TestMountPointWrittenMeanwhileIsNotReplacedWithoutForce(t *testing.T) {
	asMountPoint(t)
	_, out, _ := volume(t)
	if err := os.Remove(filepath.Join(out, "old")); err != nil {
		t.Fatal(err)
	}
	target, err := Dir(out, false)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t)(target.Path())
	writeIn(t, "theirs")(out)
	if err := target.Commit(); err == nil {
		t.Fatal("Commit replaced content written meanwhile without force")
	}
	if got := entries(t, out); !slices.Equal(got, []string{"theirs"}) {
		t.Errorf("output holds %v, want [theirs]", got)
	}
}

func TestMountPointFailedMoveRestoresOldContent(t *testing.T) {
	asMountPoint(t)
	_, out, _ := volume(t)
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t)(target.Path())
	failRename(t, syscall.EACCES, func(from, to string) bool { return to == filepath.Join(out, "pkg") })
	if err := target.Commit(); err == nil {
		t.Fatal("Commit succeeded although an entry could not be moved")
	}
	if got := entries(t, out); !slices.Equal(got, []string{"old"}) {
		t.Errorf("output holds %v after a failed Commit, want [old]", got)
	}
}

// A same-device bind mount is not detected beforehand: its rename fails at Commit.
func TestBlockedRenameFallsBackToCopy(t *testing.T) {
	for _, errno := range []error{syscall.EBUSY, syscall.EXDEV} {
		parent, out, id := volume(t)
		target, err := Dir(out, true)
		if err != nil {
			t.Fatal(err)
		}
		failRename(t, errno, func(from, to string) bool { return from == out })
		mustCommit(t, target, nil, writeTree(t))
		assertSameDir(t, out, id)
		assertTree(t, out)
		if got := entries(t, parent); !slices.Equal(got, []string{"out"}) {
			t.Errorf("%v: parent holds %v", errno, got)
		}
	}
}

func TestBlockedFileRenameOverwrites(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "index.db")
	writeData(t, "old")(out)
	id, _ := os.Stat(out)
	target, err := File(out, true)
	if err != nil {
		t.Fatal(err)
	}
	failRename(t, syscall.EBUSY, func(from, to string) bool { return from == out })
	mustCommit(t, target, nil, writeData(t, "new"))
	if data, _ := os.ReadFile(out); string(data) != "new" {
		t.Errorf("file holds %q, want new", data)
	}
	assertSameDir(t, out, id)
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("parent holds %v", got)
	}
}

func TestDirWrittenMeanwhileIsNotReplacedWithoutForce(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	target, err := Dir(out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Abort()
	writeIn(t, "new")(target.Path())
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, "theirs")(out)
	if err := target.Commit(); err == nil {
		t.Fatal("Commit replaced a directory filled meanwhile without force")
	}
	if got := entries(t, out); !slices.Equal(got, []string{"theirs"}) {
		t.Errorf("output holds %v, want [theirs]", got)
	}
	if got := entries(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v", got)
	}
}
