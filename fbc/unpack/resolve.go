package unpack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// MaxObjectFileSize bounds one object file read by ResolveRefs.
const MaxObjectFileSize = 64 << 20

// ResolveRefs replaces every olm.bundle.object property of the form {"ref": "path"} with the data
// of the file it names, so that the catalog is the same as before it was unpacked. root is what
// the catalog was loaded from (its directory, or a file in it): a ref is relative to the directory
// of the file holding the bundle (Bundle.Loc.File, relative to root as fbc.Load sets it), and must
// stay inside root's directory, symbolic links included. Every bad ref is reported, each naming
// the bundle, its file and line, and the ref; on error the catalog is not changed. A catalog
// without refs is left alone whatever root is (even "-").
func ResolveRefs(root string, c *fbc.Catalog) error { return NewResolver(root).catalog(c) }

// ResolveRefsFS is ResolveRefs for a catalog loaded from the directory tree fsys (fbc.LoadFS); see
// NewResolverFS.
func ResolveRefsFS(fsys fs.FS, c *fbc.Catalog) error { return NewResolverFS(fsys).catalog(c) }

func (r *Resolver) catalog(c *fbc.Catalog) error {
	var errs []error
	resolved := make([][]fbc.Property, len(c.Bundles))
	for bi := range c.Bundles {
		props, berrs := r.resolve(&c.Bundles[bi])
		resolved[bi], errs = props, append(errs, berrs...)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for bi, props := range resolved {
		if props != nil {
			c.Bundles[bi].Properties = props
		}
	}
	return nil
}

// Resolver resolves refs bundle by bundle, for callers that stream a catalog (fbc.Walk) instead of
// loading it whole. Use one per catalog root, from one goroutine.
type Resolver struct {
	root      string
	fsys      fs.FS // set by NewResolverFS; root is then unused
	ready     bool
	base      string
	rootIsDir bool
	err       error
}

// NewResolver prepares to resolve the refs of the catalog loaded from root; the root is examined
// only when a first ref is met.
func NewResolver(root string) *Resolver { return &Resolver{root: root} }

// NewResolverFS prepares to resolve the refs of the catalog loaded from the directory tree fsys
// (fbc.WalkFS or fbc.LoadFS, so Bundle.Loc.File is a path in fsys). A ref is relative to the
// directory of the bundle's file and must stay inside fsys. Symbolic links are followed as fsys
// follows them: keeping them inside is fsys's business (os.Root.FS does, os.DirFS does not).
func NewResolverFS(fsys fs.FS) *Resolver { return &Resolver{fsys: fsys} }

// HasRefs reports whether the bundle has an olm.bundle.object ref to resolve.
func HasRefs(b *fbc.Bundle) bool {
	for _, p := range b.Properties {
		if p.Type == property.TypeBundleObject && bytes.Contains(p.Value, []byte(`"ref"`)) {
			var obj property.BundleObject
			if json.Unmarshal(p.Value, &obj) == nil && obj.Ref != "" {
				return true
			}
		}
	}
	return false
}

// Bundle resolves the refs of one bundle in place: all of them, or on error none.
func (r *Resolver) Bundle(b *fbc.Bundle) error {
	props, errs := r.resolve(b)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if props != nil {
		b.Properties = props
	}
	return nil
}

// resolve returns the bundle's properties with refs replaced (nil when it has none).
func (r *Resolver) resolve(b *fbc.Bundle) (props []fbc.Property, errs []error) {
	for pi, p := range b.Properties {
		if p.Type != property.TypeBundleObject || !bytes.Contains(p.Value, []byte(`"ref"`)) {
			continue // the common case, data: not worth decoding
		}
		var obj property.BundleObject
		if err := json.Unmarshal(p.Value, &obj); err != nil || obj.Ref == "" {
			continue // data (or a broken value, which validation reports)
		}
		fail := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: bundle %q of package %q: olm.bundle.object ref %q: %s",
				b.Loc, b.Name, b.Package, obj.Ref, fmt.Sprintf(format, args...)))
		}
		if len(obj.Data) > 0 {
			fail("has both data and ref; keep one")
			continue
		}
		data, err := r.read(b, obj.Ref)
		if err != nil {
			fail("%v", err)
			continue
		}
		if props == nil {
			props = append([]fbc.Property(nil), b.Properties...)
		}
		props[pi] = property.Build(property.TypeBundleObject, property.BundleObject{Data: data})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return props, nil
}

// read reads the object file ref names, relative to the directory of b's file.
func (r *Resolver) read(b *fbc.Bundle, ref string) ([]byte, error) {
	if r.fsys != nil {
		return readRefFS(r.fsys, path.Dir(b.Loc.File), ref)
	}
	if !r.ready {
		r.base, r.rootIsDir, r.err = catalogDir(r.root)
		r.ready = true
	}
	if r.err != nil {
		return nil, r.err
	}
	blobDir := "."
	if r.rootIsDir {
		blobDir = filepath.Dir(filepath.FromSlash(b.Loc.File))
	}
	return readRef(r.base, blobDir, ref)
}

// catalogDir is the directory refs must stay in: root itself, or the directory of a root file.
func catalogDir(root string) (dir string, rootIsDir bool, err error) {
	if root == "-" || root == "" {
		return "", false, fmt.Errorf("olm.bundle.object refs need the catalog's directory: load the catalog from a directory or file, not standard input")
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", false, err
	}
	if !fi.IsDir() {
		root = filepath.Dir(root)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false, err
	}
	dir, err = filepath.EvalSymlinks(abs)
	return dir, fi.IsDir(), err
}

// readRef reads the object file a ref names (relative to blobDir, itself relative to base),
// refusing paths that leave the catalog directory base.
func readRef(base, blobDir, ref string) ([]byte, error) {
	if err := checkRefForm(ref); err != nil {
		return nil, err
	}
	target := filepath.Join(base, blobDir, filepath.FromSlash(ref))
	if !inside(base, target) {
		return nil, fmt.Errorf("leaves the catalog directory %s: refs must point inside it", base)
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return nil, fmt.Errorf("cannot read the object file: %v", err)
	}
	if !inside(base, real) {
		return nil, fmt.Errorf("is a symbolic link to %s, outside the catalog directory %s", real, base)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("cannot read the object file: %v", err)
	}
	defer f.Close()
	return readObjectFile(f, target)
}

// readRefFS is readRef inside fsys, blobDir being a path in it.
func readRefFS(fsys fs.FS, blobDir, ref string) ([]byte, error) {
	if err := checkRefForm(ref); err != nil {
		return nil, err
	}
	target := path.Join(blobDir, ref)
	if target == ".." || strings.HasPrefix(target, "../") {
		return nil, fmt.Errorf("leaves the catalog directory: refs must point inside it")
	}
	f, err := fsys.Open(target)
	if err != nil {
		return nil, fmt.Errorf("cannot read the object file: %v", err)
	}
	defer f.Close()
	return readObjectFile(f, target)
}

func checkRefForm(ref string) error {
	if filepath.IsAbs(ref) || strings.HasPrefix(ref, "/") || strings.Contains(ref, `\`) {
		return fmt.Errorf("must be a relative path with forward slashes")
	}
	return nil
}

// readObjectFile reads and decodes an opened object file; name is used in messages.
func readObjectFile(f fs.File, name string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("is not a regular file")
	}
	content, err := io.ReadAll(io.LimitReader(f, MaxObjectFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(content) > MaxObjectFileSize {
		return nil, fmt.Errorf("the object file is larger than %d bytes", MaxObjectFileSize)
	}
	data, err := decodeObjectFile(content)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return data, nil
}

func inside(base, path string) bool {
	rel, err := filepath.Rel(base, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
