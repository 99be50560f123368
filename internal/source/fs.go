package source

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"
	"time"
)

// FS is the raw file system of the catalog: its directory (an image's, as extracted); for a single file (an FBC file or an
// index.db) a file system holding just that file under its base name; for a stream, one file
// named "stdin".
func (s *Source) FS() fs.FS {
	if s.files != nil {
		return s.files
	}
	if s.stream != nil && s.stream.path == "" {
		return fstest.MapFS{spoolName: &fstest.MapFile{Mode: 0o444, ModTime: time.Time{}}}
	}
	if s.stream != nil {
		return oneFile{dir: os.DirFS(filepath.Dir(s.stream.path)), name: spoolName}
	}
	if fi, err := os.Stat(s.path); err == nil && fi.IsDir() {
		return os.DirFS(s.path)
	}
	return oneFile{dir: os.DirFS(filepath.Dir(s.path)), name: filepath.Base(s.path)}
}

// oneFile is a file system of one file of a directory.
type oneFile struct {
	dir  fs.FS
	name string
}

func (o oneFile) Open(name string) (fs.File, error) {
	if name != "." && name != o.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if name == "." {
		return o.root()
	}
	return o.dir.Open(name)
}

func (o oneFile) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	fi, err := fs.Stat(o.dir, o.name)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(fi)}, nil
}

func (o oneFile) root() (fs.File, error) {
	entries, err := o.ReadDir(".")
	if err != nil {
		return nil, err
	}
	return &oneFileRoot{entries: entries}, nil
}

// oneFileRoot is the root directory of a oneFile file system.
type oneFileRoot struct {
	entries []fs.DirEntry
	read    bool
}

func (r *oneFileRoot) Stat() (fs.FileInfo, error) { return rootInfo{}, nil }
func (r *oneFileRoot) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (r *oneFileRoot) Close() error { return nil }

func (r *oneFileRoot) ReadDir(n int) ([]fs.DirEntry, error) {
	if r.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	r.read = true
	return r.entries, nil
}

type rootInfo struct{}

func (rootInfo) Name() string       { return "." }
func (rootInfo) Size() int64        { return 0 }
func (rootInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (rootInfo) ModTime() time.Time { return time.Time{} }
func (rootInfo) IsDir() bool        { return true }
func (rootInfo) Sys() any           { return nil }
