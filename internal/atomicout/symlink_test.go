package atomicout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func symlink(t *testing.T, dest, link string) {
	t.Helper()
	if err := os.Symlink(dest, link); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
}

func mustCommit(t *testing.T, target *Target, err error, write func(path string)) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer target.Abort()
	write(target.Path())
	if err := target.Commit(); err != nil {
		t.Fatal(err)
	}
}

func writeIn(t *testing.T, name string) func(string) {
	return func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeData(t *testing.T, data string) func(string) {
	return func(path string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func assertLink(t *testing.T, link, want string) {
	t.Helper()
	got, err := os.Readlink(link)
	if err != nil || got != want {
		t.Errorf("%s: link is %q (%v), want it kept pointing to %q", link, got, err, want)
	}
}

func TestDirThroughSymlinkChainKeepsLinks(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "data", "catalog")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, "old")(real)
	symlink(t, "data/catalog", filepath.Join(root, "hop"))
	symlink(t, "hop", filepath.Join(root, "out"))
	out := filepath.Join(root, "out")

	target, err := Dir(out, true)
	mustCommit(t, target, err, writeIn(t, "new"))
	assertLink(t, out, "hop")
	assertLink(t, filepath.Join(root, "hop"), "data/catalog")
	if got := entries(t, real); len(got) != 1 || got[0] != "new" {
		t.Errorf("link target holds %v, want [new]", got)
	}
	if got := entries(t, filepath.Join(root, "data")); len(got) != 1 {
		t.Errorf("temporary output left beside the target: %v", got)
	}
	if _, err := Dir(out, false); err == nil || !strings.Contains(err.Error(), out) {
		t.Errorf("non-empty target of a link accepted without force, or the error does not name %s: %v", out, err)
	}
}

func TestFileThroughSymlinkKeepsLink(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, "real", "index.db")
	writeData(t, "old")(real)
	link := filepath.Join(root, "index.db")
	symlink(t, real, link)

	if _, err := File(link, false); err == nil {
		t.Error("existing target of a link accepted without force")
	}
	target, err := File(link, true)
	mustCommit(t, target, err, writeData(t, "new"))
	assertLink(t, link, real)
	if data, _ := os.ReadFile(real); string(data) != "new" {
		t.Errorf("link target holds %q, want new", data)
	}
}

func TestDanglingSymlinkCreatesItsTarget(t *testing.T) {
	root := t.TempDir()
	link := filepath.Join(root, "out")
	symlink(t, "made/here", link)
	if err := os.Mkdir(filepath.Join(root, "made"), 0o755); err != nil {
		t.Fatal(err)
	}
	target, err := Dir(link, false)
	mustCommit(t, target, err, writeIn(t, "a.json"))
	assertLink(t, link, "made/here")
	if _, err := os.Stat(filepath.Join(root, "made", "here", "a.json")); err != nil {
		t.Errorf("dangling link's target not created: %v", err)
	}

	file := filepath.Join(root, "db")
	symlink(t, "made/index.db", file)
	target, err = File(file, false)
	mustCommit(t, target, err, writeData(t, "db"))
	assertLink(t, file, "made/index.db")
	if data, _ := os.ReadFile(filepath.Join(root, "made", "index.db")); string(data) != "db" {
		t.Errorf("dangling link's target holds %q, want db", data)
	}
}

func TestDanglingSymlinkWithoutDirectoryIsAnError(t *testing.T) {
	root := t.TempDir()
	link := filepath.Join(root, "out")
	symlink(t, "missing/out", link)
	for name, open := range map[string]func(string, bool) (*Target, error){"Dir": Dir, "File": File} {
		_, err := open(link, true)
		if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), filepath.Join(root, "missing", "out")) {
			t.Errorf("%s: error %v does not name the link and its target", name, err)
		}
		assertLink(t, link, "missing/out")
		if _, err := os.Stat(filepath.Join(root, "missing")); err == nil {
			t.Errorf("%s invented the directory of a dangling link's target", name)
		}
	}
}

func TestSymlinkLoopIsAnError(t *testing.T) {
	root := t.TempDir()
	symlink(t, "b", filepath.Join(root, "a"))
	symlink(t, "a", filepath.Join(root, "b"))
	if _, err := Dir(filepath.Join(root, "a"), true); err == nil {
		t.Error("a symbolic link loop accepted as output")
	}
	assertLink(t, filepath.Join(root, "a"), "b")
}
