package fbc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Loader reads File-Based Catalogs: a directory tree of JSON and YAML files (laid out any way; opm's
// is <package>/catalog.json), given by path or as an fs.FS, a single file, or standard input ("-").
//
// Which files: every file of the tree in sorted path order, except files named .indexignore and the
// files they exclude (gitignore-style patterns relative to the .indexignore's directory, as opm
// reads them). Whether a file is JSON or YAML is decided from its content, as opm does: a file whose
// first non-space character is '{' is a stream of concatenated JSON objects, any other is a
// multi-document YAML stream; file names and extensions do not matter. Binary files are reported.
// Symbolic links to files are followed only when they stay inside the catalog directory; links
// leading out of it, links to directories (never entered, so link loops cannot hang a walk), broken
// links and special files (pipes, sockets, devices) are reported. Invalid UTF-8 inside JSON strings
// is replaced by U+FFFD, as encoding/json (and so opm) reads it.
//
// Streaming: files are read blob by blob; at no time is more than one blob's text held besides what
// the caller keeps. A blob larger than MaxBlobSize is reported and ends its file.
//
// Errors: problems with the input never stop a load early. Each is recorded as a *LoadError naming
// the file and line (and the blob, once its schema is known) and the load goes on with the next blob
// or, when the rest of a file cannot be trusted (JSON syntax error, truncated or oversized blob), the
// next file. All of them come back as one *LoadErrors. The zero Loader uses the defaults.
type Loader struct {
	MaxBlobSize int // largest blob in bytes; 0 means DefaultMaxBlobSize
	MaxErrors   int // problems kept in a *LoadErrors (the rest are counted); 0 means DefaultMaxErrors
	// Context, when set, ends a walk once it is done, between two reads of a file: its error is
	// then what the walk returns. A directory of large files that hold no blob would otherwise
	// be read to the end before a callback could notice.
	Context context.Context
	// Packages, when set, limits WalkPackages and WalkPackagesFS to the packages it accepts (and the
	// blobs of no package): the files of the others are scanned for their package names but their
	// blobs are not decoded. Walk and Load ignore it.
	Packages func(name string) bool
	// DeferBundle, when set, leaves the olm.bundle blobs it accepts undecoded in WalkPackages and
	// WalkPackagesFS: such a Bundle holds only its schema, name, package and location (as the
	// blob's head gives them) and its blob, until Bundle.Decode. For callers that keep a few
	// bundles of each package (a filter): the others are never decoded, and a problem in one
	// of them is not seen. Walk and Load ignore it.
	DeferBundle func(b Blob) bool

	// checked is set for a second reading of files the first one found free of syntax errors
	// (WalkPackages): the blobs are not validated again. Should a file change in between, what
	// decodes a blob still refuses invalid JSON.
	checked bool
}

// stopped is the error of the loader's context, nil without one.
func (l Loader) stopped() error {
	if l.Context == nil {
		return nil
	}
	return l.Context.Err()
}

// ctxReader fails the reads of a file once the loader's context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (l Loader) maxBlob() int {
	if l.MaxBlobSize > 0 {
		return l.MaxBlobSize
	}
	return blobLimitFromEnv()
}

func (l Loader) newErrorList() *errorList {
	limit := l.MaxErrors
	if limit <= 0 {
		limit = DefaultMaxErrors
	}
	return &errorList{max: limit}
}

// Walk calls fn with every blob of the catalog at root (a directory, a file, or "-" for standard
// input), in order: files in sorted path order, blobs in file order. Blob.Loc.File is the path
// relative to root for a directory, root itself for a file, StdinName for standard input.
//
// If fn returns a *LoadError (or an error wrapping one), it is recorded like the walk's own problems
// and the walk goes on; any other error from fn stops the walk and is returned as is. Otherwise Walk
// returns nil or a *LoadErrors.
func (l Loader) Walk(root string, fn func(Blob) error) error {
	if root == "-" {
		return l.WalkReader(os.Stdin, StdinName, fn)
	}
	tree, lerr := openTree(root)
	if lerr != nil {
		errs := l.newErrorList()
		errs.add(lerr)
		return errs.err()
	}
	defer tree.Close()
	return l.walkTree(tree, fn)
}

// WalkFS is Walk over the catalog directory tree fsys. Blob.Loc.File is the slash-separated path
// of the file in fsys. Symbolic links are followed as fsys follows them (fs.StatFS); they must stay
// inside fsys, which os.Root.FS ensures and os.DirFS does not. The link checks of Walk apply
// otherwise: links to directories, broken links and special files are reported.
func (l Loader) WalkFS(fsys fs.FS, fn func(Blob) error) error {
	return l.walkTree(fsTree(fsys), fn)
}

func (l Loader) walkTree(tree *catalogTree, fn func(Blob) error) error {
	errs := l.newErrorList()
	if err := tree.files(errs.add, func(name string) error {
		return l.readTreeFile(tree, name, fn, errs)
	}); err != nil {
		return err
	}
	if err := l.stopped(); err != nil {
		return err
	}
	return errs.err()
}

// WalkReader is Walk over one stream; name is used as Location.File.
func (l Loader) WalkReader(r io.Reader, name string, fn func(Blob) error) error {
	errs := l.newErrorList()
	if err := l.readStream(r, name, fn, errs); err != nil {
		return err
	}
	if err := l.stopped(); err != nil {
		return err
	}
	return errs.err()
}

func (l Loader) readTreeFile(tree *catalogTree, name string, fn func(Blob) error, errs *errorList) error {
	if err := l.stopped(); err != nil {
		return err
	}
	f, err := tree.open(name)
	if err != nil {
		errs.add(fileError(name, err, "cannot open the file"))
		return nil
	}
	defer f.Close()
	return l.readStream(f, name, fn, errs)
}

func (l Loader) readStream(r io.Reader, name string, fn func(Blob) error, errs *errorList) error {
	if l.Context != nil {
		r = ctxReader{ctx: l.Context, r: r}
	}
	fr := fileReader{
		checked: l.checked,
		file:    name,
		maxBlob: l.maxBlob(),
		report:  errs.add,
		emit:    func(b Blob) error { return recordLoadError(fn(b), b, errs) },
	}
	return fr.read(r)
}

// recordLoadError records err, the error of a walk's callback for blob b, in errs when it is a
// *LoadError (locating it at the blob when it has no place of its own): the walk goes on. Any
// other error is returned, to stop the walk.
func recordLoadError(err error, b Blob, errs *errorList) error {
	if err == nil {
		return nil
	}
	var lerr *LoadError
	if !errors.As(err, &lerr) {
		return err
	}
	if lerr.Loc == (Location{}) {
		lerr.Loc = b.Loc
	}
	errs.add(lerr)
	return nil
}

// Load reads the whole catalog at root (see Walk) into memory. On problems it returns what it could
// load together with a *LoadErrors; callers that need the complete catalog must treat any error as
// fatal.
func (l Loader) Load(root string) (*Catalog, error) {
	c := &Catalog{}
	err := l.Walk(root, c.Add)
	return c, err
}

// LoadFS is Load over the catalog directory tree fsys (see WalkFS).
func (l Loader) LoadFS(fsys fs.FS) (*Catalog, error) {
	c := &Catalog{}
	err := l.WalkFS(fsys, c.Add)
	return c, err
}

// LoadReader is Load over one stream; name is used as Location.File.
func (l Loader) LoadReader(r io.Reader, name string) (*Catalog, error) {
	c := &Catalog{}
	err := l.WalkReader(r, name, c.Add)
	return c, err
}

// Walk is Loader{}.Walk.
func Walk(root string, fn func(Blob) error) error { return Loader{}.Walk(root, fn) }

// WalkFS is Loader{}.WalkFS.
func WalkFS(fsys fs.FS, fn func(Blob) error) error { return Loader{}.WalkFS(fsys, fn) }

// WalkReader is Loader{}.WalkReader.
func WalkReader(r io.Reader, name string, fn func(Blob) error) error {
	return Loader{}.WalkReader(r, name, fn)
}

// Load is Loader{}.Load.
func Load(root string) (*Catalog, error) { return Loader{}.Load(root) }

// LoadFS is Loader{}.LoadFS.
func LoadFS(fsys fs.FS) (*Catalog, error) { return Loader{}.LoadFS(fsys) }

// LoadReader is Loader{}.LoadReader.
func LoadReader(r io.Reader, name string) (*Catalog, error) { return Loader{}.LoadReader(r, name) }

// Add decodes a blob by its schema and appends it to the catalog: olm.package, olm.channel,
// olm.bundle and olm.deprecations become typed values, any other schema is kept verbatim in Others.
// A blob that does not decode gives a *LoadError and leaves the catalog unchanged. b.Data must be
// valid JSON, as Walk hands it over (it is not validated again).
func (c *Catalog) Add(b Blob) error {
	var err error
	switch b.Schema {
	case SchemaPackage:
		var p Package
		if err = p.UnmarshalJSON(b.Data); err == nil {
			p.Loc = b.Loc
			c.Packages = append(c.Packages, p)
		}
	case SchemaChannel:
		var ch Channel
		if err = ch.UnmarshalJSON(b.Data); err == nil {
			ch.Loc = b.Loc
			c.Channels = append(c.Channels, ch)
		}
	case SchemaBundle:
		var bundle Bundle
		if err = bundle.UnmarshalJSON(b.Data); err == nil {
			bundle.Loc = b.Loc
			c.Bundles = append(c.Bundles, bundle)
		}
	case SchemaDeprecations:
		var d Deprecation
		if err = d.UnmarshalJSON(b.Data); err == nil {
			d.Loc = b.Loc
			c.Deprecations = append(c.Deprecations, d)
		}
	case "":
		err = errors.New(`blob has no "schema" field`)
	default:
		c.Others = append(c.Others, Meta{Schema: b.Schema, Package: b.Package, Name: b.Name, Blob: b.Data, Loc: b.Loc})
	}
	if err == nil {
		return nil
	}
	return &LoadError{Loc: b.Loc, Schema: b.Schema, Package: b.Package, Name: b.Name,
		Err: &problem{kind: ErrBadField, cause: err,
			msg: fmt.Sprintf("cannot decode the blob: %v; fix the field's type (see the %s schema)", err, b.Schema)}}
}
