package nofollow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func setup(t *testing.T) (dir, outside string, root *os.Root) {
	t.Helper()
	dir, outside = t.TempDir(), t.TempDir()
	for name, content := range map[string]string{"a/b/file": "inside", "top": "top"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, outside, root
}

func TestReadsRegularFiles(t *testing.T) {
	_, _, root := setup(t)
	for rel, want := range map[string]string{"a/b/file": "inside", "top": "top"} {
		got, err := ReadFile(root, rel, 100)
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", rel, got, err)
		}
	}
	if _, err := ReadFile(root, "a/b/file", 3); !errors.As(err, new(*TooLargeError)) {
		t.Errorf("a file over the bound: %v, want a TooLargeError", err)
	}
	if _, err := ReadFile(root, "a/missing", 3); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want not found", err)
	}
}

// A link anywhere on the way (inside the root or out of it), a FIFO, a device: refused as what
// it is, never opened through, never blocking.
func TestRefusesLinksFIFOsAndDevices(t *testing.T) {
	dir, outside, root := setup(t)
	links := map[string]string{
		"to-outside":    filepath.Join(outside, "secret"),
		"to-inside":     "top",
		"dirlink":       "a",
		"outdir":        outside,
		"zero":          "/dev/zero",
		"a/b/to-parent": "../../top",
	}
	for name, dest := range links {
		if err := os.Symlink(dest, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for rel, says := range map[string]string{
			"to-outside": "is a symbolic link, not a regular file", "to-inside": "is a symbolic link",
			"zero": "is a symbolic link", "a/b/to-parent": "a/b/to-parent is a symbolic link",
			"dirlink/b/file": "dirlink is a symbolic link, not a directory", "outdir/secret": "outdir is a symbolic link, not a directory",
			"fifo": "fifo is a named pipe (FIFO), not a regular file", "a": "a is a directory, not a regular file",
			"top/x": "top is a regular file, not a directory",
		} {
			_, err := ReadFile(root, rel, 1<<20)
			if err == nil || !strings.Contains(err.Error(), says) {
				t.Errorf("%s: %v, want %q", rel, err, says)
			}
		}
		if _, err := OpenDir(root, "outdir"); err == nil {
			t.Error("OpenDir followed a link out of the root")
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}
