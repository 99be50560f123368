// Package filetree is a read-only file tree whose file contents live in one temporary file, with
// the tree itself (names, kinds, links) in memory. An image's catalog is extracted into one, so
// that reading a catalog of 50,000 files from an image creates one file on disk instead of
// 50,000: file creation, not reading, was what made an image cost several times a directory.
// The temporary file is unlinked as soon as it is made (where the system allows it), so even a
// killed process leaves nothing behind.
package filetree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

type kind uint8

const (
	dirNode kind = iota
	fileNode
	linkNode
)

type node struct {
	kind      kind
	off, size int64               // a file's content in the pack file
	target    string              // a link's target: a clean path in the tree ("." is the root)
	children  map[string]struct{} // a directory's entries, while building
	sorted    []string            // a directory's entries, once built
}

// Builder makes a Tree. Names are slash-separated paths relative to the root, valid in the sense
// of fs.ValidPath; "." is the root, which always exists. The builder does not create parents: a
// name's parent must be a directory already (the extractor checks and makes them, refusing a path
// beneath a link).
type Builder struct {
	pack      *pack
	size      int64
	nodes     map[string]*node
	files     int
	finished  bool
	packError error
}

// NewBuilder makes a builder whose pack file is created in dir ("" for the default temp dir).
func NewBuilder(dir string) (*Builder, error) {
	p := &pack{dir: dir}
	if err := p.file(); err != nil {
		return nil, err
	}
	return newBuilder(p), nil
}

// NewBuilderInMemory makes a builder that keeps the files' content in memory up to memLimit bytes
// and moves it into a pack file in dir when it grows past that: for trees that are most often
// small (a bundle), and read soon.
func NewBuilderInMemory(dir string, memLimit int64) *Builder {
	return newBuilder(&pack{dir: dir, memLimit: memLimit})
}

func newBuilder(p *pack) *Builder {
	return &Builder{pack: p, nodes: map[string]*node{".": {kind: dirNode, children: map[string]struct{}{}}}}
}

// Kind reports what is at name without following a final link: fs.ModeDir, fs.ModeSymlink, 0 for
// a regular file; ok is false when nothing is there.
func (b *Builder) Kind(name string) (mode fs.FileMode, ok bool) {
	n := b.nodes[name]
	if n == nil {
		return 0, false
	}
	return n.mode().Type(), true
}

// Mkdir adds a directory; an existing directory is left as it is.
func (b *Builder) Mkdir(name string) error {
	if n := b.nodes[name]; n != nil {
		if n.kind == dirNode {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: name, Err: fs.ErrExist}
	}
	return b.add(name, &node{kind: dirNode, children: map[string]struct{}{}})
}

// WriteFile adds a regular file with the content read from r, copied through buf, and returns the
// number of bytes read. A read error is returned as it is (wrapped in *ReadError) so that the caller
// can tell a truncated source from a failing disk.
func (b *Builder) WriteFile(name string, r io.Reader, buf []byte) (int64, error) {
	if err := b.checkNew("create", name); err != nil {
		return 0, err
	}
	if b.packError != nil {
		return 0, b.packError
	}
	w := &packWriter{p: b.pack}
	n, err := io.CopyBuffer(w, r, buf)
	off := b.size
	b.size += n
	if w.err != nil {
		b.packError = fmt.Errorf("write the extracted files to a temporary file in %s: %w (point TMPDIR at a disk with room)", orTempDir(b.pack.dir), w.err)
		return n, b.packError
	}
	if err != nil {
		return n, &ReadError{Err: err}
	}
	if err := b.add(name, &node{kind: fileNode, off: off, size: n}); err != nil {
		return n, err
	}
	b.files++
	return n, nil
}

// Symlink adds a link to target, a path in the tree ("." for the root). The target need not exist.
func (b *Builder) Symlink(name, target string) error {
	if !fs.ValidPath(target) {
		return &fs.PathError{Op: "symlink", Path: target, Err: fs.ErrInvalid}
	}
	if err := b.checkNew("symlink", name); err != nil {
		return err
	}
	return b.add(name, &node{kind: linkNode, target: target})
}

// Link adds a hard link: name gets the content of the regular file target.
func (b *Builder) Link(name, target string) error {
	t := b.nodes[target]
	if t == nil || t.kind != fileNode {
		return &fs.PathError{Op: "link", Path: target, Err: errors.New("not a regular file of the tree")}
	}
	if err := b.checkNew("link", name); err != nil {
		return err
	}
	if err := b.add(name, &node{kind: fileNode, off: t.off, size: t.size}); err != nil {
		return err
	}
	b.files++
	return nil
}

// Remove removes a file or link, or a directory with all it holds.
func (b *Builder) Remove(name string) error {
	n := b.nodes[name]
	if n == nil || name == "." {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	if n.kind == dirNode {
		for child := range n.children {
			if err := b.Remove(join(name, child)); err != nil {
				return err
			}
		}
	}
	if n.kind == fileNode {
		b.files--
	}
	delete(b.nodes, name)
	delete(b.nodes[parent(name)].children, path.Base(name))
	return nil
}

// Files is the number of regular files in the tree.
func (b *Builder) Files() int { return b.files }

// Empty reports whether the root holds nothing (true once the builder is finished or discarded).
func (b *Builder) Empty() bool {
	root := b.nodes["."]
	return root == nil || len(root.children) == 0
}

// Tree ends the building and gives the tree, which owns the pack file from then on.
func (b *Builder) Tree() (*Tree, error) {
	if b.finished {
		return nil, errors.New("filetree: Tree called twice")
	}
	b.finished = true
	if b.packError != nil {
		b.Discard()
		return nil, b.packError
	}
	for _, n := range b.nodes {
		if n.kind == dirNode {
			n.sorted = make([]string, 0, len(n.children))
			for c := range n.children {
				n.sorted = append(n.sorted, c)
			}
			sort.Strings(n.sorted)
			n.children = nil
		}
	}
	t := &Tree{pack: b.pack, nodes: b.nodes, files: b.files, size: b.size}
	b.pack, b.nodes = nil, nil
	return t, nil
}

// Discard drops the tree being built and its pack file; after Tree, it does nothing (the tree
// owns the pack file).
func (b *Builder) Discard() {
	b.finished = true
	if b.pack != nil {
		b.pack.close()
		b.pack, b.nodes = nil, nil
	}
}

func (b *Builder) checkNew(op, name string) error {
	if b.finished {
		return errors.New("filetree: the builder is finished")
	}
	if !fs.ValidPath(name) || name == "." {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if b.nodes[name] != nil {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrExist}
	}
	return nil
}

func (b *Builder) add(name string, n *node) error {
	if err := b.checkNew("add", name); err != nil {
		return err
	}
	p := b.nodes[parent(name)]
	if p == nil || p.kind != dirNode {
		return &fs.PathError{Op: "add", Path: name, Err: errors.New("its parent is not a directory of the tree")}
	}
	p.children[path.Base(name)] = struct{}{}
	b.nodes[name] = n
	return nil
}

// ReadError is a failure to read a file's content from its source (not to store it).
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// packWriter remembers a failure to write the pack file, so that any other copy error is the
// source's. It also hides the file's ReadFrom, so that io.CopyBuffer uses the buffer it is given.
type packWriter struct {
	p   *pack
	err error
}

func (w *packWriter) Write(p []byte) (int, error) {
	n, err := w.p.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// orTempDir is dir, or the default temporary directory when dir is "".
func orTempDir(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}

// parent is path.Dir with "." for top-level names.
func parent(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
