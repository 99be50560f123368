// Package input opens the two sides of a catalog diff through package source (any catalog
// reference: FBC, index.db, image, git revision, ...). What loads is returned even when part of it
// is broken: problems of the content travel with the side and become findings. An input that
// cannot be used at all is a *source.Error.
package input

import (
	"context"
	"errors"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/source"
)

// Formats of a side, as reported in diff.SideSummary.Format.
const (
	FormatFBC    = "fbc"
	FormatSQLite = "sqlite"
)

// Options tune how inputs are opened.
type Options struct {
	Source source.Options
}

// Open loads one side.
func Open(ctx context.Context, ref string, opts Options) (*diff.Side, error) {
	src, err := source.Open(ctx, ref, opts.Source)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return (&loader{ctx: ctx}).load(src)
}

// loader loads sides; with a sharer, bundle content equal to the other side's is decoded and kept
// once (side tells the two apart).
type loader struct {
	ctx   context.Context
	share *sharer
	side  int
}

func (l *loader) load(src *source.Source) (*diff.Side, error) {
	var side *diff.Side
	var err error
	if src.Format() == source.FormatSQLite {
		side, err = l.loadSQLite(src)
	} else {
		side, err = l.loadFBC(src)
	}
	if err != nil {
		return nil, err
	}
	if src.Template() != "" {
		side.Format = "template" // rendered as it was read
	}
	switch ref := src.Ref(); {
	case ref.IsImage():
		side.Format = "image/" + side.Format
	case ref.Form == source.FormGit:
		side.Format = "git/" + side.Format
	}
	return side, nil
}

// loadFBC loads like fbc.Load; bundles that the other side of a pair holds byte for byte are
// decoded by only one of them (see sharer).
func (l *loader) loadFBC(src *source.Source) (*diff.Side, error) {
	cat := &fbc.Catalog{}
	var waiting []pendingBundle
	var owned []*sharedBundle
	var problems model.Issues
	err := src.Walk(l.ctx, func(b fbc.Blob) error {
		if b.InvalidUTF8Line > 0 {
			problems = append(problems, model.InvalidUTF8Issue(b)) // as olmcat validate warns
		}
		if b.Schema != fbc.SchemaBundle {
			return cat.Add(b)
		}
		own, pending := l.share.claim(l.side, b)
		if own != nil {
			owned = append(owned, own)
		}
		if pending != nil && pending.same {
			pending.index = len(cat.Bundles)
			cat.Bundles = append(cat.Bundles, fbc.Bundle{Loc: b.Loc})
			waiting = append(waiting, *pending)
			return nil
		}
		err := cat.Add(b)
		own.published(cat, err)
		switch {
		case err != nil:
		case pending != nil:
			pending.index = len(cat.Bundles) - 1
			waiting = append(waiting, *pending)
		default:
			// Not paired by its text (e.g. the other side is an index.db, whose values are compact):
			// equal property values are still kept once.
			l.share.bundle(&cat.Bundles[len(cat.Bundles)-1])
		}
		return err
	})
	for _, o := range owned {
		o.abandon() // a walk that stopped early must not leave the other side waiting
	}
	var lerrs *fbc.LoadErrors
	if err != nil && !errors.As(err, &lerrs) {
		return nil, err
	}
	problems = append(append(loadProblems(err), finish(cat, waiting)...), problems...)
	return &diff.Side{Source: src.String(), Format: FormatFBC, Catalog: cat, Problems: problems}, nil
}

// loadSQLite converts an index.db the way olmcat migrate does (opm migrate's output, with opm's
// failures repaired). Where the conversion departs from opm it is a warning of the side, as in
// olmcat validate.
func (l *loader) loadSQLite(src *source.Source) (*diff.Side, error) {
	side := &diff.Side{Source: src.String(), Format: FormatSQLite, Catalog: &fbc.Catalog{}}
	err := src.WalkPackages(l.ctx, func(_ string, c *fbc.Catalog) error {
		for i := range c.Bundles {
			l.share.bundle(&c.Bundles[i])
		}
		side.Catalog.Append(c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range src.Departures().Departures {
		side.Problems = append(side.Problems, &model.Issue{Severity: model.Warning, Rule: "migrate-" + string(d.Code),
			File: src.String(), Package: d.Package, Channel: d.Channel, Bundle: d.Bundle,
			Message: "opm migrate " + d.Opm + "; olmcat migrate " + d.Olmcat, // as olmcat validate words it
			Hint:    "fix the index.db, or migrate it with olmcat, which does what is described"})
	}
	return side, nil
}

// loadProblems turns the loader's errors (*fbc.LoadErrors) into issues as olmcat validate does
// (model.LoadIssues: the same rules, e.g. load-syntax, and fix hints), so that they compare and
// print like validation problems.
func loadProblems(err error) model.Issues {
	issues, other := model.LoadIssues(err)
	if other != nil {
		return model.Issues{{Severity: model.Error, Rule: "load-io", Message: other.Error(), Hint: "check that the file is readable"}}
	}
	return issues
}
