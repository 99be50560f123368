package ops

import (
	"bufio"
	"os"
	"path/filepath"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
)

// WriteDir writes the catalog as opm lays one out: <dir>/<package>/catalog.<json|yaml> per
// package, blobs of no package in <dir>/catalog.<ext>. The directory appears atomically; an
// existing non-empty dir is replaced only with force.
func WriteDir(c *fbc.Catalog, dir string, format fbc.Format, force bool) error {
	target, err := atomicout.Dir(dir, force)
	if err != nil {
		return err
	}
	defer target.Abort()
	var names outpath.Names
	rootFile := "catalog" + format.Ext() // the blobs of no package
	names.Reserve(rootFile)
	for _, part := range fbc.SplitByPackage(c) {
		sub := target.Path()
		if part.Package != "" {
			if sub, err = names.Join(sub, outpath.Package, part.Package, part.Catalog.Where()); err != nil {
				return err
			}
		}
		if err := writeFile(filepath.Join(sub, rootFile), part.Catalog, format); err != nil {
			return target.Err(err)
		}
	}
	return target.Commit()
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

func writeFile(name string, c *fbc.Catalog, format fbc.Format) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = fbc.Write(w, c, format)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
