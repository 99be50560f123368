package atomicout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failRename makes renames whose source or destination satisfies match fail with errno.
func failRename(t *testing.T, errno error, match func(from, to string) bool) {
	t.Helper()
	orig := rename
	t.Cleanup(func() { rename = orig })
	rename = func(from, to string) error {
		if match(from, to) {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: errno}
		}
		return orig(from, to)
	}
}

func replaceDir(t *testing.T) (parent, out string, target *Target) {
	t.Helper()
	parent = t.TempDir()
	out = filepath.Join(parent, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "old"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(target.Abort)
	if err := os.WriteFile(filepath.Join(target.Path(), "new"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	return parent, out, target
}

func TestLeftoverOldCopyIsNotAFailure(t *testing.T) {
	orig := removeAll
	t.Cleanup(func() { removeAll = orig })
	removeAll = func(path string) error {
		if strings.HasSuffix(path, ".old") {
			return syscall.EACCES
		}
		return orig(path)
	}
	_, out, target := replaceDir(t)
	if err := target.Commit(); err != nil {
		t.Fatalf("output in place, yet Commit failed: %v", err)
	}
	if got := entries(t, out); len(got) != 1 || got[0] != "new" {
		t.Errorf("output holds %v, want [new]", got)
	}
}

func TestFailedReplaceKeepsPrevious(t *testing.T) {
	parent, out, target := replaceDir(t)
	failRename(t, syscall.EACCES, func(from, to string) bool { return to == out && !strings.HasSuffix(from, ".old") })
	if err := target.Commit(); err == nil {
		t.Fatal("Commit succeeded although the output could not be moved into place")
	}
	if got := entries(t, out); len(got) != 1 || got[0] != "old" {
		t.Errorf("output holds %v, want the previous [old]", got)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("parent holds %v, want only the output", got)
	}
}

func TestFailedPutBackSaysWhereThePreviousOutputIs(t *testing.T) {
	_, out, target := replaceDir(t)
	failRename(t, syscall.EACCES, func(from, to string) bool { return to == out })
	err := target.Commit()
	if err == nil {
		t.Fatal("Commit succeeded although the output could not be moved into place")
	}
	var old string
	if i := strings.Index(err.Error(), "is at "); i >= 0 {
		old = strings.SplitN(err.Error()[i+len("is at "):], ":", 2)[0]
	}
	if data, rerr := os.ReadFile(filepath.Join(old, "old")); rerr != nil || string(data) != "old" {
		t.Errorf("error %q does not name where the previous output is (%v)", err, rerr)
	}
	if !errors.Is(err, syscall.EACCES) {
		t.Errorf("error %q does not wrap the cause", err)
	}
}
