package atomicout

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree lists the files under root with their content and permission bits.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			m[rel+"/"] = info.Mode().Perm().String()
			return nil
		}
		b, err := os.ReadFile(p)
		m[rel] = info.Mode().Perm().String() + " " + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func filesFixture(t *testing.T) (root string, changes []Change) {
	t.Helper()
	root = t.TempDir()
	for name, mode := range map[string]fs.FileMode{"a/catalog.json": 0o640, "b/catalog.yaml": 0o644, "c/catalog.json": 0o600} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old "+name), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "b", "README"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, []Change{
		{Path: filepath.Join(root, "a/catalog.json"), Data: []byte("new a")},
		{Path: filepath.Join(root, "b/catalog.yaml"), Remove: true},
		{Path: filepath.Join(root, "c/catalog.json"), Remove: true},
		{Path: filepath.Join(root, "d/e/catalog.json"), Data: []byte("new d")},
	}
}

// Files applies every change: modes kept, new files 0644, removed files' emptied directories
// gone (not the root, not a directory that holds something else), nothing temporary left.
func TestFilesApplies(t *testing.T) {
	root, changes := filesFixture(t)
	if err := Files(root, changes); err != nil {
		t.Fatal(err)
	}
	got := tree(t, root)
	want := map[string]string{
		"a/": "-rwxr-xr-x", "a/catalog.json": "-rw-r----- new a",
		"b/": "-rwxr-xr-x", "b/README": "-rw-r--r-- keep",
		"d/": "-rwxr-xr-x", "d/e/": "-rwxr-xr-x", "d/e/catalog.json": "-rw-r--r-- new d",
	}
	for k := range want {
		if strings.HasSuffix(k, "/") {
			want[k] = got[k] // directories: whatever the umask made of them
		}
	}
	if !mapsEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// A rename failing halfway puts back what was already put in place: every file as it was, no
// temporary or set-aside file left, no directory created.
func TestFilesAllOrNothing(t *testing.T) {
	for failAt := 1; failAt <= 5; failAt++ {
		root, changes := filesFixture(t)
		before := tree(t, root)
		orig := rename
		calls := 0
		rename = func(from, to string) error {
			calls++
			if calls == failAt {
				return errors.New("injected rename failure")
			}
			return orig(from, to)
		}
		err := Files(root, changes)
		rename = orig
		if err == nil || !strings.Contains(err.Error(), "injected") {
			t.Fatalf("failing rename %d: %v", failAt, err)
		}
		if after := tree(t, root); !mapsEqual(after, before) {
			t.Errorf("failing rename %d: the files changed:\n%v\nwere\n%v", failAt, after, before)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v, ok := b[k]; !ok || v != a[k] {
			return false
		}
	}
	return true
}

// A link is written through (its target replaced, the link kept) and removed itself.
func TestFilesLinks(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"target.json", "other.json"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("target.json", filepath.Join(root, "link.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink("other.json", filepath.Join(root, "gone.json")); err != nil {
		t.Fatal(err)
	}
	err := Files(root, []Change{{Path: filepath.Join(root, "link.json"), Data: []byte("new")}, {Path: filepath.Join(root, "gone.json"), Remove: true}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "target.json")); string(b) != "new" {
		t.Errorf("target: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(root, "link.json")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was not kept: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "gone.json")); !os.IsNotExist(err) {
		t.Errorf("the removed link is still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "other.json")); string(b) != "old" {
		t.Errorf("the removed link's target changed: %q", b)
	}
}
