// Package input opens the two sides of a catalog diff: a File-Based Catalog directory or file, a
// SQLite index.db, an index image, or a catalog path at a git revision. What loads is returned even
// when part of it is broken: load problems travel with the side and become findings.
package input

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// Formats of a side, as reported in diff.SideSummary.Format.
const (
	FormatFBC    = "fbc"
	FormatSQLite = "sqlite"
)

// Options tune how inputs are opened.
type Options struct {
	Images indeximage.Options
}

// Open loads one side from a path or an image reference. An input that does not exist, or an image
// that cannot be fetched, is an error; an input that exists but is partly broken is a side with
// problems.
func Open(ctx context.Context, ref string, opts Options) (*diff.Side, error) {
	return (&opener{ctx: ctx, opts: opts}).open(ref)
}

// opener opens sides; with a sharer, bundle content equal to the other side's is decoded and kept
// once (side tells the two apart).
type opener struct {
	ctx   context.Context
	opts  Options
	share *sharer
	side  int
}

func (o *opener) open(ref string) (*diff.Side, error) {
	if _, err := os.Stat(ref); err != nil {
		if indeximage.IsImageRef(ref) {
			return o.openImage(ref)
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory (give an FBC directory or file, an index.db, or an image reference)", ref)
		}
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return o.openPath(ref, ref)
}

// openPath loads a local catalog; source is how the side is named in the report.
func (o *opener) openPath(path, source string) (*diff.Side, error) {
	isDB, err := sqlite.IsSQLiteFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if isDB {
		return o.openSQLite(path, source), nil
	}
	return o.openFBC(path, source), nil
}

// openFBC loads like fbc.Load; bundles that the other side of a pair holds byte for byte are
// decoded by only one of them (see sharer).
func (o *opener) openFBC(path, source string) *diff.Side {
	cat := &fbc.Catalog{}
	var waiting []pendingBundle
	err := fbc.Walk(path, func(b fbc.Blob) error {
		if b.Schema != fbc.SchemaBundle {
			return cat.Add(b)
		}
		own, pending := o.share.claim(o.side, b)
		if pending != nil && pending.same {
			pending.index = len(cat.Bundles)
			cat.Bundles = append(cat.Bundles, fbc.Bundle{Loc: b.Loc})
			waiting = append(waiting, *pending)
			return nil
		}
		err := cat.Add(b)
		own.published(cat, err)
		if pending != nil && err == nil {
			pending.index = len(cat.Bundles) - 1
			waiting = append(waiting, *pending)
		}
		return err
	})
	problems := append(loadProblems(err), finish(cat, waiting)...)
	return &diff.Side{Source: source, Format: FormatFBC, Catalog: cat, Problems: problems}
}

// openSQLite converts an index.db the way olmcat migrate does (opm migrate's output, with opm's
// failures repaired). Where the conversion departs from opm it is a warning of the side, as in
// olmcat validate; a file that cannot be read at all is a side with one error.
func (o *opener) openSQLite(path, source string) *diff.Side {
	side := &diff.Side{Source: source, Format: FormatSQLite, Catalog: &fbc.Catalog{}}
	fail := func(err error) *diff.Side {
		side.Problems = model.Issues{{Severity: model.Error, Rule: "unreadable-index-db", File: path,
			Message: err.Error(), Hint: "check that the file is a complete index.db"}}
		return side
	}
	db, err := sqlite.Open(path)
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	at := fbc.Location{File: path}
	report, err := tofbc.Convert(o.ctx, db, tofbc.Options{}, func(_ string, c *fbc.Catalog) error {
		for i := range c.Bundles {
			o.share.bundle(&c.Bundles[i])
		}
		appendCatalog(side.Catalog, c, at)
		return nil
	})
	if err != nil {
		return fail(err)
	}
	for _, d := range report.Departures {
		side.Problems = append(side.Problems, &model.Issue{Severity: model.Warning, Rule: "migrate-" + string(d.Code),
			File: path, Package: d.Package, Channel: d.Channel, Bundle: d.Bundle,
			Message: "opm migrate " + d.Opm + "; olmcat " + d.Olmcat})
	}
	return side
}

// appendCatalog adds the blobs of one converted package, located in the index.db file.
func appendCatalog(dst, src *fbc.Catalog, at fbc.Location) {
	for _, p := range src.Packages {
		p.Loc = at
		dst.Packages = append(dst.Packages, p)
	}
	for _, ch := range src.Channels {
		ch.Loc = at
		dst.Channels = append(dst.Channels, ch)
	}
	for _, b := range src.Bundles {
		b.Loc = at
		dst.Bundles = append(dst.Bundles, b)
	}
	for _, d := range src.Deprecations {
		d.Loc = at
		dst.Deprecations = append(dst.Deprecations, d)
	}
	for _, o := range src.Others {
		o.Loc = at
		dst.Others = append(dst.Others, o)
	}
}

func (o *opener) openImage(ref string) (*diff.Side, error) {
	img, err := indeximage.Fetch(o.ctx, ref, o.opts.Images)
	if err != nil {
		return nil, err
	}
	defer img.Cleanup()
	side, err := o.openPath(img.Path, ref)
	if err != nil {
		return nil, err
	}
	side.Format = "image/" + side.Format
	return side, nil
}

// loadProblems turns the loader's errors into issues, so that they compare and print like
// validation problems.
func loadProblems(err error) model.Issues {
	if err == nil {
		return nil
	}
	var lerrs *fbc.LoadErrors
	if !errors.As(err, &lerrs) {
		return model.Issues{{Severity: model.Error, Rule: "load-error", Message: err.Error()}}
	}
	out := make(model.Issues, 0, len(lerrs.Errs)+1)
	for _, e := range lerrs.Errs {
		i := &model.Issue{Severity: model.Error, Rule: "load-error", Loc: e.Loc, File: e.Loc.File, Line: e.Loc.Line,
			Package: e.Package, Message: e.Err.Error()}
		switch e.Schema {
		case fbc.SchemaBundle:
			i.Bundle = e.Name
		case fbc.SchemaChannel:
			i.Channel = e.Name
		case fbc.SchemaPackage:
			i.Package = e.Name
		}
		out = append(out, i)
	}
	if lerrs.Omitted > 0 {
		out = append(out, &model.Issue{Severity: model.Error, Rule: "load-error",
			Message: fmt.Sprintf("%d more load problems not listed", lerrs.Omitted)})
	}
	return out
}
