package ops

import (
	"bufio"
	"os"
	"path/filepath"
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
)

// WriteDir writes the catalog as opm lays one out (see Layout). The directory appears
// atomically; an existing non-empty dir is replaced only with force.
func WriteDir(c *fbc.Catalog, dir string, format fbc.Format, force bool) error {
	target, err := atomicout.Dir(dir, force)
	if err != nil {
		return err
	}
	defer target.Abort()
	layout := NewLayout(target.Path(), format)
	for _, part := range fbc.SplitByPackage(c) {
		if err := layout.Write(part.Package, part.Catalog); err != nil {
			return target.Err(err)
		}
	}
	return target.Commit()
}

// Layout writes a catalog into an empty directory as opm lays one out, a package at a time:
// <dir>/<package>/catalog.<json|yaml> per package, blobs of no package in <dir>/catalog.<ext>.
// Package names become directories through internal/outpath: a name that cannot be one, or that
// would be the same directory as an earlier one, is refused with an *outpath.NameError.
type Layout struct {
	dir, file string
	format    fbc.Format
	names     outpath.Names
}

// NewLayout returns a Layout writing into dir, which exists and is empty.
func NewLayout(dir string, format fbc.Format) *Layout {
	l := &Layout{dir: dir, file: "catalog" + format.Ext(), format: format}
	l.names.Reserve(l.file)
	return l
}

// Write writes c, the blobs of package pkg ("" for the blobs of no package).
func (l *Layout) Write(pkg string, c *fbc.Catalog) error {
	dir := l.dir
	if pkg != "" {
		var err error
		if dir, err = l.names.Join(l.dir, outpath.Package, pkg, c.Where()); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
	}
	return writeFile(filepath.Join(dir, l.file), c, l.format)
}

// WriteFile writes the whole catalog as one file, atomically; an existing file is replaced only
// with force.
func WriteFile(c *fbc.Catalog, path string, format fbc.Format, force bool) error {
	target, err := atomicout.File(path, force)
	if err != nil {
		return err
	}
	defer target.Abort()
	if err := writeFile(target.Path(), c, format); err != nil {
		return target.Err(err)
	}
	return target.Commit()
}

// fileWriters are the 1 MiB write buffers of writeFile, reused: a directory of a few hundred small
// package files would otherwise allocate (and clear) a buffer per file.
var fileWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 1<<20) }}

// writeFile creates the file name, which must not exist, with the catalog in it.
func writeFile(name string, c *fbc.Catalog, format fbc.Format) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := fileWriters.Get().(*bufio.Writer)
	w.Reset(f)
	err = fbc.Write(w, c, format)
	if err == nil {
		err = w.Flush()
	}
	w.Reset(nil)
	fileWriters.Put(w)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
