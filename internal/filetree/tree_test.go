package filetree

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

type entry struct{ name, content, link, hardlink string }

func build(t *testing.T, entries ...entry) *Tree {
	t.Helper()
	b, err := NewBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch {
		case strings.HasSuffix(e.name, "/"):
			err = b.Mkdir(strings.TrimSuffix(e.name, "/"))
		case e.link != "":
			err = b.Symlink(e.name, e.link)
		case e.hardlink != "":
			err = b.Link(e.name, e.hardlink)
		default:
			var n int64
			n, err = b.WriteFile(e.name, strings.NewReader(e.content), make([]byte, 3))
			if err == nil && n != int64(len(e.content)) {
				t.Fatalf("%s: wrote %d bytes of %d", e.name, n, len(e.content))
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
	}
	tree, err := b.Tree()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	return tree
}

var sample = []entry{
	{name: "etcd/"},
	{name: "etcd/catalog.json", content: `{"schema":"olm.package","name":"etcd"}`},
	{name: "etcd/objects/"},
	{name: "etcd/objects/csv.yaml", content: "kind: ClusterServiceVersion\n"},
	{name: "empty.json"},
	{name: "linked.json", link: "etcd/catalog.json"},
	{name: "alias", link: "etcd"},
	{name: "hard.json", hardlink: "etcd/catalog.json"},
	{name: "chain.json", link: "linked.json"},
}

func TestTreeIsAFileSystem(t *testing.T) {
	tree := build(t, sample...)
	if err := fstest.TestFS(tree, "etcd/catalog.json", "etcd/objects/csv.yaml", "empty.json", "linked.json",
		"hard.json", "chain.json"); err != nil {
		t.Fatal(err)
	}
	if tree.Files() != 4 || tree.Bytes() != int64(len(sample[1].content)+len(sample[3].content)) {
		t.Errorf("Files %d, Bytes %d", tree.Files(), tree.Bytes())
	}
}

func TestTreeReadsLikeTheSameFilesOnDisk(t *testing.T) {
	tree := build(t, sample...)
	dir := t.TempDir()
	if err := tree.WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	disk, _ := os.OpenRoot(dir)
	defer disk.Close()
	for _, fsys := range []fs.FS{tree, disk.FS()} {
		if err := fstest.TestFS(fsys, "etcd/catalog.json", "etcd/objects/csv.yaml"); err != nil {
			t.Fatal(err)
		}
	}
	want, got := describe(t, disk.FS()), describe(t, tree)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the tree reads differently from its copy on disk (-disk +tree):\n%s", diff)
	}
}

// describe lists every name with its kinds (lstat, stat), link text and content.
func describe(t *testing.T, fsys fs.FS) []string {
	var out []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		line := name + " " + d.Type().String()
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := fs.ReadLink(fsys, name)
			if err != nil {
				return err
			}
			line += " -> " + target
		}
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			return err
		}
		line += " " + fi.Mode().Type().String()
		if fi.Mode().IsRegular() {
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			line += " " + string(data)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTreeLinks(t *testing.T) {
	tree := build(t,
		entry{name: "a/"},
		entry{name: "a/b/"},
		entry{name: "a/b/f.json", content: "x"},
		entry{name: "up", link: "a/b/f.json"},
		entry{name: "a/b/down", link: "."},
		entry{name: "broken", link: "nowhere"},
		entry{name: "loop1", link: "loop2"},
		entry{name: "loop2", link: "loop1"},
		entry{name: "a/sib", link: "a/b"},
	)
	for name, want := range map[string]string{"up": "a/b/f.json", "a/b/down": "../..", "broken": "nowhere", "a/sib": "b"} {
		if got, err := tree.ReadLink(name); err != nil || got != want {
			t.Errorf("ReadLink(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if data, err := fs.ReadFile(tree, "a/b/down/a/sib/f.json"); err != nil || string(data) != "x" {
		t.Errorf("reading through links in the middle of a name: %q, %v", data, err)
	}
	if _, err := tree.Stat("broken"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a broken link: %v, want not exist", err)
	}
	if fi, err := tree.Lstat("broken"); err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Errorf("Lstat of a broken link: %v, %v", fi, err)
	}
	if _, err := tree.Open("loop1"); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("Open of a link loop: %v", err)
	}
	if _, err := tree.Open("a/b/f.json/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a name beneath a file: %v", err)
	}
	for _, bad := range []string{"/a", "a/../a", "", "a/"} {
		if _, err := tree.Open(bad); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q): %v, want invalid", bad, err)
		}
	}
}

func TestBuilderRefusals(t *testing.T) {
	b, err := NewBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Discard()
	if _, err := b.WriteFile("missing/f", strings.NewReader(""), make([]byte, 8)); err == nil {
		t.Error("a file without its parent directory was added")
	}
	if _, err := b.WriteFile("f", strings.NewReader("1"), make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteFile("f", strings.NewReader("2"), make([]byte, 8)); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a second f: %v", err)
	}
	if _, err := b.WriteFile("f/g", strings.NewReader(""), make([]byte, 8)); err == nil {
		t.Error("a file beneath a file was added")
	}
	if err := b.Link("l", "nothing"); err == nil {
		t.Error("a hard link to nothing was added")
	}
	if err := b.Symlink("s", "../out"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("a link out of the tree: %v", err)
	}
	if err := b.Mkdir("f"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a directory over a file: %v", err)
	}
	if err := b.Remove("f"); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Kind("f"); ok || b.Files() != 0 {
		t.Error("f is still there after Remove")
	}
	if _, err := b.WriteFile("f", strings.NewReader("3"), make([]byte, 8)); err != nil {
		t.Errorf("f again after Remove: %v", err)
	}
	if b.Empty() {
		t.Error("Empty with f in the root")
	}
	b.Discard()
	if !b.Empty() {
		t.Error("a discarded builder is not empty")
	}
	if _, err := b.WriteFile("g", strings.NewReader(""), make([]byte, 8)); err == nil {
		t.Error("a discarded builder took a file")
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestReadErrorsAreTheSources(t *testing.T) {
	b, err := NewBuilder(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Discard()
	_, err = b.WriteFile("f", io.MultiReader(strings.NewReader("abc"), failingReader{}), make([]byte, 2))
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("got %v, want a *ReadError wrapping the source's error", err)
	}
}

func TestNothingIsLeftOnDisk(t *testing.T) {
	dir := t.TempDir()
	b, err := NewBuilder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteFile("f", strings.NewReader(strings.Repeat("x", 1<<16)), make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Errorf("the pack file is visible while the tree is built: %v", left)
	}
	tree, err := b.Tree()
	if err != nil {
		t.Fatal(err)
	}
	if data, err := tree.ReadFile("f"); err != nil || len(data) != 1<<16 {
		t.Fatalf("ReadFile: %d bytes, %v", len(data), err)
	}
	tree.Close()
	left, _ = filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// A tree built in memory reads as one built in a pack file: small, it makes no file; grown past
// its limit, it moves what it holds into a pack file, unlinked, and every file reads back whole,
// those written before the move as those after, through ReadFile, Open and WriteTo.
func TestInMemoryBuilder(t *testing.T) {
	files := []struct{ name, content string }{
		{"a.yaml", strings.Repeat("a", 3000)},
		{"b.yaml", strings.Repeat("b", 5000)},
		{"c.yaml", ""},
		{"d.yaml", strings.Repeat("d", 9000)},
		{"e.yaml", strings.Repeat("0123456789abcdef", 50000)}, // across memChunks
	}
	for _, limit := range []int64{4 << 20, 4000, 0} {
		dir := t.TempDir()
		b := NewBuilderInMemory(dir, limit)
		for _, f := range files {
			if _, err := b.WriteFile(f.name, strings.NewReader(f.content), make([]byte, 1001)); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Errorf("limit %d: a file is visible while the tree is built: %v", limit, left)
			}
		}
		tree, err := b.Tree()
		if err != nil {
			t.Fatal(err)
		}
		if inMemory := tree.pack.f == nil; inMemory != (limit == 4<<20) {
			t.Errorf("limit %d: content in memory %v", limit, inMemory)
		}
		var fsFiles []string
		for _, f := range files {
			data, err := tree.ReadFile(f.name)
			if err != nil || string(data) != f.content {
				t.Errorf("limit %d: ReadFile(%s): %d bytes, %v", limit, f.name, len(data), err)
			}
			fsFiles = append(fsFiles, f.name)
		}
		if err := fstest.TestFS(tree, fsFiles...); err != nil {
			t.Errorf("limit %d: %v", limit, err)
		}
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := tree.WriteTo(out); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if data, err := os.ReadFile(filepath.Join(out, f.name)); err != nil || string(data) != f.content {
				t.Errorf("limit %d: written %s: %d bytes, %v", limit, f.name, len(data), err)
			}
		}
		tree.Close()
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
			t.Errorf("limit %d: left behind: %v", limit, left)
		}
	}
}
