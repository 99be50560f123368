package template

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/internal/spool"
)

// spoolMemory is how many bytes of written bundles a streamed render keeps in memory before it
// spools them to a temporary file.
const spoolMemory = 4 << 20

// Rendered is a rendered template ready to be written: RenderStreamed's result. Close it.
type Rendered struct {
	cat    *fbc.Catalog
	format string
	// A streamed basic template: each bundle of cat is a stub (schema, name, package, image)
	// whose blob, as Write writes it in format, is record[i] of written.
	written *spool.Spool
	record  []int
}

// WriteError is a rendered template that could not be written (the output failed, or a bundle
// is larger than a catalog may hold).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// RenderStreamed renders a template as Render does, to be written in format (one of Write's). A
// basic template rendered by a BundleStreamer in json or yaml is not held in memory: each bundle,
// once rendered, is written in format into a spool (memory up to spoolMemory, then a temporary
// file) and dropped, so that a template naming tens of thousands of images takes the memory of
// the images being rendered, not of all of them. Nothing is written to any output until every
// bundle is rendered: a template that fails writes nothing. Other templates and formats are
// rendered by Render.
func RenderStreamed(ctx context.Context, t *Template, r BundleRenderer, opts Options, format string) (*Rendered, error) {
	st, ok := r.(BundleStreamer)
	if !ok || t.Basic == nil || (format != OutputJSON && format != OutputYAML) {
		cat, err := Render(ctx, t, r, opts)
		if err != nil {
			return nil, err
		}
		return &Rendered{cat: cat, format: format}, nil
	}
	loc := locator{file: opts.File, lines: t.Lines}
	if loc.lines == nil {
		loc.lines = &Lines{}
	}
	out, err := renderBasicStreamed(ctx, t.Basic, st, opts, loc, format)
	if err != nil {
		var we *WriteError
		if errors.As(err, &we) {
			return nil, err
		}
		return nil, &RenderError{Err: err}
	}
	return out, nil
}

// renderBasicStreamed is renderBasic through a BundleStreamer, each bundle written to a spool as
// soon as it is rendered.
func renderBasicStreamed(ctx context.Context, t *Basic, st BundleStreamer, opts Options, loc locator, format string) (*Rendered, error) {
	cat, err := loadEntries(t.Entries, loc)
	if err != nil {
		return nil, err
	}
	valid := renderablePrefix(cat)
	var refs []string
	first := map[string]int{} // ref -> its index in refs
	for _, b := range cat.Bundles[:valid] {
		if _, ok := first[b.Image]; !ok {
			first[b.Image] = len(refs)
			refs = append(refs, b.Image)
		}
	}
	out := &Rendered{format: format, written: spool.New(spoolMemory), record: make([]int, len(cat.Bundles))}
	stubs := make([]fbc.Bundle, len(refs))
	var blob strings.Builder
	err = st.RenderEach(ctx, refs, func(i int, b fbc.Bundle) error {
		if opts.CSVMetadata {
			if err := csvmeta.Migrate(&b, csvmeta.BundleCSV(&b)); err != nil {
				return fmt.Errorf("render reference %q: migrate bundle %q to olm.csv.metadata: %v", refs[i], b.Name, err)
			}
		}
		b.Extra = nil
		for j := range b.RelatedImages {
			b.RelatedImages[j].Extra = nil
		}
		stubs[i] = fbc.Bundle{Schema: b.Schema, Name: b.Name, Package: b.Package, Image: b.Image}
		if b.Package == "" {
			return out.written.Add(nil) // not written (see splitRootOthers)
		}
		blob.Reset()
		if err := fbc.Write(&blob, &fbc.Catalog{Bundles: []fbc.Bundle{b}}, fbc.Format(format)); err != nil {
			return &WriteError{Err: err}
		}
		return out.written.Add([]byte(blob.String()))
	})
	if err != nil {
		out.Close()
		var img *ImageError
		var we *WriteError
		switch {
		case errors.As(err, &we):
		case errors.As(err, &img):
			err = fmt.Errorf("render reference %q: %w", img.Ref, err)
		case len(refs) == 1:
			err = fmt.Errorf("render reference %q: %w", refs[0], err)
		}
		return nil, err
	}
	if err := out.written.Finish(); err != nil {
		out.Close()
		return nil, &WriteError{Err: err}
	}
	if valid < len(cat.Bundles) {
		out.Close()
		return nil, bundleEntryError(cat.Bundles[valid], entryLine(t.Entries, valid, loc))
	}
	for i := range cat.Bundles[:valid] {
		n := first[cat.Bundles[i].Image]
		stub := stubs[n]
		stub.Loc = cat.Bundles[i].Loc
		cat.Bundles[i], out.record[i] = stub, n
	}
	dropUnknownFields(cat)
	out.cat = cat
	return out, nil
}

// Write writes the rendered template as Write writes its catalog, byte for byte. Errors are
// *WriteError.
func (r *Rendered) Write(w io.Writer) error {
	if r.written == nil {
		if err := Write(w, r.cat, r.format); err != nil {
			return &WriteError{Err: err}
		}
		return nil
	}
	if err := r.writeStreamed(w); err != nil {
		return &WriteError{Err: err}
	}
	return nil
}

// writeStreamed writes the catalog in Write's order (fbc.Write's, package by package), each
// bundle's blob copied from the spool.
func (r *Rendered) writeStreamed(w io.Writer) error {
	f := fbc.Format(r.format)
	rest, rootOthers := splitRootOthers(r.cat)
	// The bundles of each package by name (stably, in template order among equal names), as
	// writePackage sorts them; their records follow them.
	type bundleRef struct {
		name, pkg string
		record    int
	}
	byPkg := map[string][]bundleRef{}
	for i, b := range r.cat.Bundles {
		if b.Package != "" {
			byPkg[b.Package] = append(byPkg[b.Package], bundleRef{b.Name, b.Package, r.record[i]})
		}
	}
	rest.Bundles = nil
	parts := fbc.SplitByPackage(rest)
	have := map[string]bool{}
	for _, p := range parts {
		have[p.Package] = true
	}
	for pkg := range byPkg {
		if !have[pkg] {
			parts = append(parts, fbc.PackagePart{Package: pkg, Catalog: &fbc.Catalog{}})
		}
	}
	slices.SortFunc(parts, func(a, b fbc.PackagePart) int { return strings.Compare(a.Package, b.Package) })
	for _, p := range parts {
		head := &fbc.Catalog{Packages: p.Catalog.Packages, Channels: p.Catalog.Channels}
		if err := writeIfAny(w, head, f); err != nil {
			return err
		}
		bundles := byPkg[p.Package]
		slices.SortStableFunc(bundles, func(a, b bundleRef) int { return strings.Compare(a.name, b.name) })
		for _, b := range bundles {
			blob, err := r.written.Get(b.record)
			if err != nil {
				return err
			}
			if _, err := w.Write(blob); err != nil {
				return err
			}
		}
		tail := &fbc.Catalog{Others: p.Catalog.Others, Deprecations: p.Catalog.Deprecations}
		if err := writeIfAny(w, tail, f); err != nil {
			return err
		}
	}
	if len(rootOthers) > 0 {
		return fbc.Write(w, &fbc.Catalog{Others: rootOthers}, f)
	}
	return nil
}

func writeIfAny(w io.Writer, c *fbc.Catalog, f fbc.Format) error {
	if len(c.Packages)+len(c.Channels)+len(c.Bundles)+len(c.Others)+len(c.Deprecations) == 0 {
		return nil
	}
	return fbc.Write(w, c, f)
}

// Close removes the spool's temporary file, if any.
func (r *Rendered) Close() error {
	if r.written == nil {
		return nil
	}
	return r.written.Close()
}
