package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/unpack"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// Walk calls fn with every blob of the catalog, as fbc.Walk does: files in sorted path order,
// blobs in file order; problems of the content come back together as an *fbc.LoadErrors at the
// end. The olm.bundle.object refs of an unpacked catalog are resolved (a ref that cannot be read
// is a problem of its blob). An index.db is converted as olmcat migrate converts it, package by
// package in name order, and its blobs are located in the database file; Departures then reports
// what the conversion did differently from opm.
func (s *Source) Walk(ctx context.Context, fn func(fbc.Blob) error) error {
	if s.format == FormatSQLite {
		return s.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error { return emitBlobs(c, fn) })
	}
	resolver := s.resolver()
	return s.walkFBC(ctx, func(b fbc.Blob) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.countBlob(b.Schema)
		if b.Schema == fbc.SchemaBundle && bytes.Contains(b.Data, []byte(`"ref"`)) {
			resolved, err := resolveBlob(resolver, b)
			if err != nil {
				return err
			}
			b = resolved
		}
		return fn(b)
	})
}

// WalkPackages calls fn once per package, in package-name order, with that package's blobs (see
// fbc.WalkPackages: a catalog with load problems is not handed over; the problems are returned).
// An index.db is converted one package at a time, so its size does not matter.
func (s *Source) WalkPackages(ctx context.Context, fn func(pkg string, c *fbc.Catalog) error) error {
	return s.WalkSomePackages(ctx, nil, fn)
}

// WalkSomePackages is WalkPackages for the packages keep accepts (nil: all), and the blobs of no
// package. keep sees every package name of the catalog; the packages it refuses are not converted
// (an index.db) or not decoded (an FBC), so that a few packages of a large catalog are read fast.
func (s *Source) WalkSomePackages(ctx context.Context, keep func(pkg string) bool, fn func(pkg string, c *fbc.Catalog) error) error {
	return s.walkSomePackages(ctx, keep, false, fn)
}

// WalkSomePackagesDeferring is WalkSomePackages where the bundles may come undecoded: fn decodes
// those it keeps (fbc.DecodeBundles), and the others cost only their reading. Those of an FBC
// directory are read and left undecoded (fbc.Loader.DeferBundle); those of an index.db (schema 9
// and later) are converted without their manifests, properties and related images, which are read
// when they are decoded (tofbc.Options.DeferBundles: Departures then says nothing of the contents
// of bundles). A bundle with olm.bundle.object refs (an unpacked catalog) comes decoded and
// resolved; so do the bundles of a stream.
func (s *Source) WalkSomePackagesDeferring(ctx context.Context, keep func(pkg string) bool, fn func(pkg string, c *fbc.Catalog) error) error {
	return s.walkSomePackages(ctx, keep, true, fn)
}

func (s *Source) walkSomePackages(ctx context.Context, keep func(pkg string) bool, deferBundles bool, fn func(pkg string, c *fbc.Catalog) error) error {
	if progress := s.opts.Progress; progress != nil {
		walk := fn
		fn = func(pkg string, c *fbc.Catalog) error {
			progress(len(c.Packages), len(c.Bundles))
			return walk(pkg, c)
		}
	}
	if s.format == FormatSQLite {
		report, err := tofbc.Convert(ctx, s.db, tofbc.Options{MigrateLevel: s.opts.MigrateLevel, Packages: keep, DeferBundles: deferBundles}, func(pkg string, c *fbc.Catalog) error {
			locateIn(c, s.ref.Raw)
			return fn(pkg, c)
		})
		s.report = report
		return classify(s.ref.Raw, err)
	}
	resolver := s.resolver()
	each := func(pkg string, c *fbc.Catalog) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := resolveCatalog(resolver, c); err != nil {
			return err
		}
		return fn(pkg, c)
	}
	if s.stream != nil {
		c := &fbc.Catalog{}
		if err := s.walkFBC(ctx, c.Add); err != nil {
			return err
		}
		for _, part := range fbc.SplitByPackage(c) {
			if part.Package != "" && keep != nil && !keep(part.Package) {
				continue
			}
			if err := each(part.Package, part.Catalog); err != nil {
				return err
			}
		}
		return nil
	}
	loader := fbc.Loader{Context: ctx, Packages: keep}
	if deferBundles {
		// A blob that may hold refs is decoded now, so that resolveCatalog sees its properties.
		loader.DeferBundle = func(b fbc.Blob) bool { return !bytes.Contains(b.Data, []byte(`"ref"`)) }
	}
	if s.files != nil {
		return classifyWalk(s.ref.Raw, loader.WalkPackagesFS(s.files, each))
	}
	return classifyWalk(s.ref.Raw, loader.WalkPackages(s.path, each))
}

// Load reads the whole catalog. On problems of the content it returns what loaded together with
// the *fbc.LoadErrors (an index.db has none: it converts or fails).
func (s *Source) Load(ctx context.Context) (*fbc.Catalog, error) {
	all := &fbc.Catalog{}
	if s.format == FormatSQLite {
		err := s.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error {
			all.Append(c)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return all, nil
	}
	err := s.Walk(ctx, all.Add)
	return all, err
}

// walkFBC walks the FBC's blobs; a signal (ctx) ends the walk between two reads.
func (s *Source) walkFBC(ctx context.Context, fn func(fbc.Blob) error) error {
	loader := fbc.Loader{Context: ctx}
	if s.stream != nil {
		r, err := s.stream.open()
		if err != nil {
			return err
		}
		defer r.Close()
		if s.templateLocs != nil {
			locate, walk := s.templateLocs.Locator(), fn
			fn = func(b fbc.Blob) error {
				if loc, ok := locate(b); ok {
					b.Loc = loc
				}
				return walk(b)
			}
		}
		return loader.WalkReader(r, s.streamName(), fn)
	}
	if s.files != nil {
		return classifyWalk(s.ref.Raw, loader.WalkFS(s.files, fn))
	}
	return classifyWalk(s.ref.Raw, loader.Walk(s.path, fn))
}

func (s *Source) streamName() string {
	name := s.ref.Raw
	if s.ref.Form == FormStdin {
		name = fbc.StdinName
	}
	if s.template != "" {
		name += " (rendered)"
	}
	return name
}

// resolver resolves unpacked refs relative to the catalog directory or file. A stream has no
// directory; a ref in it is a problem of its blob.
func (s *Source) resolver() *unpack.Resolver {
	switch {
	case s.files != nil:
		return unpack.NewResolverFS(s.files)
	case s.stream != nil:
		return unpack.NewResolver("-")
	}
	return unpack.NewResolver(s.path)
}

// classifyWalk keeps the load problems of the content as they are (the commands report them) and
// turns anything else into an input error where it is one.
func classifyWalk(ref string, err error) error {
	var lerrs *fbc.LoadErrors
	if err == nil || errors.As(err, &lerrs) {
		return err
	}
	return classify(ref, err)
}

// errFound stops the emptiness check at the first package.
var errFound = errors.New("found a package")

// checkNotEmpty refuses a catalog without a single blob (an empty directory, a directory of
// READMEs, a mistyped path), which would otherwise pass every check silently, and warns about one
// whose blobs hold no package. It reads up to the first olm.package blob.
func (s *Source) checkNotEmpty(ctx context.Context) error {
	if s.opts.AllowEmpty {
		return nil
	}
	blobs := false
	err := s.walkFBC(ctx, func(b fbc.Blob) error {
		blobs = true
		if b.Schema == fbc.SchemaPackage {
			return errFound
		}
		return ctx.Err()
	})
	if errors.Is(err, errFound) {
		return nil
	}
	if (blobs || s.files != nil) && err == nil {
		// An image's label says where its catalog is: nothing there is an empty catalog, not a
		// mistyped path.
		s.warnNoPackage("catalog")
		return nil
	}
	empty := s.emptyError()
	var lerrs *fbc.LoadErrors
	if errors.As(err, &lerrs) {
		// Blobs, or a broken catalog file, make a catalog with problems, which the command
		// reports in full; a directory of nothing but READMEs and the like is no catalog at all.
		others := otherFiles(lerrs)
		if blobs || others == nil {
			return nil
		}
		empty.Detail += ", only files that are not catalog files: " + strings.Join(others, ", ")
		empty.Hint = "check the path; list such files in a .indexignore"
		return empty
	}
	if err != nil {
		return err
	}
	return empty
}

// emptyError is the error for a catalog in which no blob was found.
func (s *Source) emptyError() *Error {
	where := "under " + s.ref.Raw
	if s.stream != nil {
		where = "in " + s.streamName()
	}
	return &Error{Ref: s.ref.Raw, Problem: EmptyCatalog, Detail: "no catalog blobs found " + where,
		Hint: "check the path; pass --allow-empty if an empty catalog is intended"}
}

// otherFiles lists the files of the load problems when none of them is named like a catalog file
// (.json, .yaml, .yml), and nil otherwise.
func otherFiles(lerrs *fbc.LoadErrors) []string {
	var files []string
	seen := map[string]bool{}
	for _, e := range lerrs.Errs {
		switch strings.ToLower(filepath.Ext(e.Loc.File)) {
		case ".json", ".yaml", ".yml":
			return nil
		}
		if !seen[e.Loc.File] {
			seen[e.Loc.File] = true
			files = append(files, e.Loc.File)
		}
	}
	if lerrs.Omitted > 0 || len(files) == 0 {
		return nil
	}
	return files
}

// resolveBlob resolves the refs of one bundle blob, giving the blob with its data written back.
func resolveBlob(r *unpack.Resolver, b fbc.Blob) (fbc.Blob, error) {
	var bundle fbc.Bundle
	if err := bundle.UnmarshalJSON(b.Data); err != nil {
		return b, nil // the consumer reports a blob that does not decode
	}
	bundle.Loc = b.Loc
	if !unpack.HasRefs(&bundle) {
		return b, nil
	}
	if err := r.Bundle(&bundle); err != nil {
		return b, refError(b, err)
	}
	data, err := json.Marshal(bundle)
	if err != nil {
		return b, fmt.Errorf("%s: re-encode bundle %q: %w", b.Loc, b.Name, err)
	}
	b.Data = data
	return b, nil
}

func resolveCatalog(r *unpack.Resolver, c *fbc.Catalog) error {
	var errs []error
	for i := range c.Bundles {
		if !unpack.HasRefs(&c.Bundles[i]) {
			continue
		}
		if err := r.Bundle(&c.Bundles[i]); err != nil {
			errs = append(errs, &fbc.LoadError{Loc: c.Bundles[i].Loc, Schema: fbc.SchemaBundle,
				Package: c.Bundles[i].Package, Name: c.Bundles[i].Name, Err: err})
		}
	}
	if len(errs) > 0 {
		lerrs := &fbc.LoadErrors{}
		for _, e := range errs {
			lerrs.Errs = append(lerrs.Errs, e.(*fbc.LoadError))
		}
		return lerrs
	}
	return nil
}

func refError(b fbc.Blob, err error) error {
	return &fbc.LoadError{Loc: b.Loc, Schema: b.Schema, Package: b.Package, Name: b.Name, Err: err}
}

// countBlob tells Options.Progress of a package or bundle blob read.
func (s *Source) countBlob(schema string) {
	switch {
	case s.opts.Progress == nil:
	case schema == fbc.SchemaPackage:
		s.opts.Progress(1, 0)
	case schema == fbc.SchemaBundle:
		s.opts.Progress(0, 1)
	}
}

// emitBlobs hands the blobs of a converted index.db package over as a walk would.
func emitBlobs(c *fbc.Catalog, fn func(fbc.Blob) error) error {
	emit := func(schema, pkg, name string, v any, loc fbc.Location) error {
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode %s %q of package %q: %w", schema, name, pkg, err)
		}
		return fn(fbc.Blob{Schema: schema, Package: pkg, Name: name, Data: data, Loc: loc})
	}
	for _, p := range c.Packages {
		if err := emit(fbc.SchemaPackage, p.Name, p.Name, p, p.Loc); err != nil {
			return err
		}
	}
	for _, ch := range c.Channels {
		if err := emit(fbc.SchemaChannel, ch.Package, ch.Name, ch, ch.Loc); err != nil {
			return err
		}
	}
	for _, b := range c.Bundles {
		if err := emit(fbc.SchemaBundle, b.Package, b.Name, b, b.Loc); err != nil {
			return err
		}
	}
	for _, d := range c.Deprecations {
		if err := emit(fbc.SchemaDeprecations, d.Package, "", d, d.Loc); err != nil {
			return err
		}
	}
	for _, o := range c.Others {
		if err := fn(fbc.Blob{Schema: o.Schema, Package: o.Package, Name: o.Name, Data: o.Blob, Loc: o.Loc}); err != nil {
			return err
		}
	}
	return nil
}

// locateIn places the blobs of a converted package in the index.db, for messages.
func locateIn(c *fbc.Catalog, file string) {
	at := fbc.Location{File: file}
	for i := range c.Packages {
		c.Packages[i].Loc = at
	}
	for i := range c.Channels {
		c.Channels[i].Loc = at
	}
	for i := range c.Bundles {
		c.Bundles[i].Loc = at
	}
	for i := range c.Deprecations {
		c.Deprecations[i].Loc = at
	}
	for i := range c.Others {
		c.Others[i].Loc = at
	}
}
