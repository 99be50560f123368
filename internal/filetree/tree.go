package filetree

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"
)

// maxLinkHops bounds the links followed resolving one name, as the kernel's ELOOP does.
const maxLinkHops = 40

var errLinkLoop = errors.New("too many levels of symbolic links")

// Tree is a built file tree. It implements fs.FS, fs.StatFS, fs.ReadDirFS, fs.ReadFileFS and
// fs.ReadLinkFS, with the semantics of a directory on disk: Open, Stat and ReadDir follow links,
// Lstat and ReadLink do not. It is safe for concurrent use; Close releases the pack file.
type Tree struct {
	pack      *pack
	nodes     map[string]*node
	files     int
	size      int64
	closeOnce sync.Once
}

var (
	_ fs.StatFS     = (*Tree)(nil)
	_ fs.ReadDirFS  = (*Tree)(nil)
	_ fs.ReadFileFS = (*Tree)(nil)
	_ fs.ReadLinkFS = (*Tree)(nil)
)

// Files is the number of regular files (hard links counted as files); Bytes their total size as stored.
func (t *Tree) Files() int   { return t.files }
func (t *Tree) Bytes() int64 { return t.size }

// Close releases the pack file. The tree must not be read afterwards.
func (t *Tree) Close() error {
	t.closeOnce.Do(func() { t.pack.close() })
	return nil
}

// resolve finds the node name leads to, following links in the middle of the name always and a
// final link when follow is set. It returns the node and its path in the tree.
func (t *Tree) resolve(op, name string, follow bool) (*node, string, error) {
	if !fs.ValidPath(name) {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	hops := 0
	cur, rest := ".", name
	if rest == "." {
		rest = ""
	}
	for rest != "" {
		part, more, _ := strings.Cut(rest, "/")
		here := t.nodes[cur]
		if here.kind != dirNode {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		next := join(cur, part)
		n := t.nodes[next]
		if n == nil {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if n.kind == linkNode && (more != "" || follow) {
			if hops++; hops > maxLinkHops {
				return nil, "", &fs.PathError{Op: op, Path: name, Err: errLinkLoop}
			}
			// Targets are paths from the root: start again from there.
			cur, rest = ".", n.target
			if rest == "." {
				rest = ""
			}
			if more != "" {
				if rest == "" {
					rest = more
				} else {
					rest += "/" + more
				}
			}
			continue
		}
		cur, rest = next, more
	}
	return t.nodes[cur], cur, nil
}

// Open opens name, following links.
func (t *Tree) Open(name string) (fs.File, error) {
	n, at, err := t.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	info := t.info(name, n)
	if n.kind == dirNode {
		return &dirFile{tree: t, at: at, info: info, names: n.sorted}, nil
	}
	return &regularFile{SectionReader: io.NewSectionReader(t.pack, n.off, n.size), info: info}, nil
}

// Stat describes name, following links.
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	n, _, err := t.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return t.info(name, n), nil
}

// Lstat describes name without following a final link.
func (t *Tree) Lstat(name string) (fs.FileInfo, error) {
	n, _, err := t.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return t.info(name, n), nil
}

// ReadLink gives a link's target as a path relative to the link's directory, as a link extracted
// to disk would read.
func (t *Tree) ReadLink(name string) (string, error) {
	n, at, err := t.resolve("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.kind != linkNode {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return relative(parent(at), n.target), nil
}

// ReadDir lists a directory, following links, sorted by name.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	n, at, err := t.resolve("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if n.kind != dirNode {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return t.entries(at, n.sorted), nil
}

// ReadFile reads a whole file, following links.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	n, _, err := t.resolve("readfile", name, true)
	if err != nil {
		return nil, err
	}
	if n.kind != fileNode {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	data := make([]byte, n.size)
	if _, err := t.pack.ReadAt(data, n.off); err != nil && !(err == io.EOF && n.size == 0) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	return data, nil
}

func (t *Tree) entries(dir string, names []string) []fs.DirEntry {
	out := make([]fs.DirEntry, len(names))
	for i, c := range names {
		out[i] = fs.FileInfoToDirEntry(t.info(c, t.nodes[join(dir, c)]))
	}
	return out
}

func (t *Tree) info(name string, n *node) fileInfo {
	return fileInfo{name: path.Base(name), size: n.size, mode: n.mode()}
}

func (n *node) mode() fs.FileMode {
	switch n.kind {
	case dirNode:
		return fs.ModeDir | 0o755
	case linkNode:
		return fs.ModeSymlink | 0o777
	}
	return 0o644
}

// relative is the path from directory dir to target, both paths of the tree.
func relative(dir, target string) string {
	split := func(p string) []string {
		if p == "." {
			return nil
		}
		return strings.Split(p, "/")
	}
	from, to := split(dir), split(target)
	common := 0
	for common < len(from) && common < len(to) && from[common] == to[common] {
		common++
	}
	var parts []string
	for range from[common:] {
		parts = append(parts, "..")
	}
	parts = append(parts, to[common:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

type regularFile struct {
	*io.SectionReader
	info fileInfo
}

func (f *regularFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *regularFile) Close() error               { return nil }

type dirFile struct {
	tree  *Tree
	at    string
	info  fileInfo
	names []string
	pos   int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.at, Err: errors.New("is a directory")}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	left := d.names[d.pos:]
	if n > 0 {
		if len(left) == 0 {
			return nil, io.EOF
		}
		left = left[:min(n, len(left))]
	}
	d.pos += len(left)
	return d.tree.entries(d.at, left), nil
}
