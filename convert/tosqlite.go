package convert

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/source"
)

// ToSQLiteOptions control an FBC → index.db conversion.
type ToSQLiteOptions struct {
	// Force replaces an existing output file.
	Force bool
	// Strict fails, writing nothing, when any part of the catalog cannot be represented (a loss in
	// the report) instead of reporting it.
	Strict bool
	// Permissive writes the valid part of an invalid catalog and reports the rest (the report's
	// Skipped issues) instead of refusing the catalog.
	Permissive bool
	// BeforeCommit, if set, runs once the database is complete and before it is moved into place;
	// an error aborts the conversion, leaving nothing at the output.
	BeforeCommit func(*SQLiteReport) error
}

// ToSQLite writes cat as a schema-13 index.db at out: the database opm v1.72's replaces-mode loader
// would have produced for the same content (docs/sqlite-fbc-mapping.md §5), so that
// `opm registry serve` answers from it as `opm serve` answers from the catalog, up to the known
// SQLite/FBC differences.
//
// An invalid catalog is refused with an *InvalidCatalogError unless opts.Permissive. Everything the
// database cannot hold is named in the returned report; with opts.Strict any loss fails the
// conversion with a *LossError (and the report). The output appears only when everything
// succeeded.
func ToSQLite(ctx context.Context, cat *fbc.Catalog, out string, opts ToSQLiteOptions) (*SQLiteReport, error) {
	return toSQLite(ctx, out, opts, func(add func(*fbc.Catalog) error) error {
		for _, part := range fbc.SplitByPackage(cat) {
			if err := add(part.Catalog); err != nil {
				return err
			}
		}
		return nil
	})
}

// ToSQLiteFromSource is ToSQLite for an opened catalog, read one package at a time (see
// source.Source.WalkPackages), so memory holds one package's blobs and rows, not the catalog. A
// catalog that does not load is refused with the load problems as validation issues; with
// opts.Permissive it is loaded whole, and whatever loaded is converted.
func ToSQLiteFromSource(ctx context.Context, src *source.Source, out string, opts ToSQLiteOptions) (*SQLiteReport, error) {
	r, err := toSQLite(ctx, out, opts, func(add func(*fbc.Catalog) error) error {
		return src.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error { return add(c) })
	})
	if err == nil {
		return r, nil
	}
	var loadErrs *fbc.LoadErrors
	if !errors.As(err, &loadErrs) {
		return r, err
	}
	issues, ierr := model.LoadIssues(err)
	if ierr != nil {
		return nil, ierr
	}
	if !opts.Permissive {
		return nil, &InvalidCatalogError{Issues: issues}
	}
	cat, _ := src.Load(ctx)
	r, err = ToSQLite(ctx, cat, out, opts)
	if r != nil {
		r.Skipped = append(issues, r.Skipped...)
	}
	return r, err
}

// ToSQLiteFromPath is ToSQLiteFromSource for a catalog reference (see source.Parse).
func ToSQLiteFromPath(ctx context.Context, ref, out string, opts ToSQLiteOptions) (*SQLiteReport, error) {
	src, err := source.Open(ctx, ref, source.Options{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return ToSQLiteFromSource(ctx, src, out, opts)
}

// validModel builds the model of a part and checks it against opm's rules and what an index.db
// needs (sqliteWritabilityIssues). Without Permissive, problems come back as invalid. With it, the
// invalid packages, channels and bundles are dropped from the model and the problems come back as
// skipped.
func (c *sqliteConversion) validModel(part *fbc.Catalog) (m *model.Model, skipped, invalid model.Issues) {
	issues := model.ValidateCatalog(part, model.Options{}).Errors()
	m, _ = model.FromCatalog(part)
	toDrop := issues
	if len(issues) == 0 {
		if issues = c.writability(m); len(issues) == 0 {
			return m, nil, nil
		}
		toDrop = issues
	} else if c.opts.Permissive {
		// FromCatalog already left out what it could not place (duplicates, blobs of unknown
		// packages); the model's own rules say what else to drop. They repeat what ValidateCatalog
		// found, so they decide what is dropped but are not reported again.
		toDrop = model.Validate(m, model.Options{}).Errors()
	}
	if !c.opts.Permissive {
		return nil, nil, issues
	}
	return m, append(issues, dropInvalidForSQLite(m, toDrop, c.writability)...), nil
}

// writability is sqliteWritabilityIssues plus the check only the conversion can make: bundle names
// are unique across the whole database, also across parts.
func (c *sqliteConversion) writability(m *model.Model) model.Issues {
	issues := sqliteWritabilityIssues(m).Errors()
	for _, pkg := range m.SortedPackages() {
		for _, b := range pkg.SortedBundles() {
			if other, ok := c.owners[b.Name]; ok && other != pkg.Name {
				issues = append(issues, &model.Issue{Severity: model.Error, Rule: "bundle-name-clash", Loc: b.Loc,
					File: b.Loc.File, Line: b.Loc.Line, Package: pkg.Name, Bundle: b.Name, Hint: "rename one of the bundles",
					Message: fmt.Sprintf("bundle name is also used in package %q; an index.db keys bundles by name alone", other)})
			}
		}
	}
	return issues
}

// unrepresentableInSQLite reports what no table holds at all: deprecation messages, blobs of other
// schemas, and fields of core blobs that olmcat does not know.
func unrepresentableInSQLite(cat *fbc.Catalog, r *SQLiteReport) {
	for _, d := range cat.Deprecations {
		for _, e := range d.Entries {
			f := Finding{Kind: KindDeprecation, Package: d.Package, Detail: fmt.Sprintf("%s deprecation message %q: index.db has no place for deprecation messages (its deprecated table is for truncated bundles)", e.Reference.Schema, e.Message)}
			switch e.Reference.Schema {
			case fbc.SchemaChannel:
				f.Channel = e.Reference.Name
			case fbc.SchemaBundle:
				f.Bundle = e.Reference.Name
			}
			r.loss(f)
		}
	}
	for _, o := range cat.Others {
		r.loss(Finding{Kind: KindCustomBlob, Package: o.Package,
			Detail: fmt.Sprintf("blob of schema %q (name %q, at %s): index.db has no place for other schemas", o.Schema, o.Name, o.Loc)})
	}
	unknown := func(f Finding, what string, e fbc.Extra) {
		if len(e) == 0 {
			return
		}
		keys := make([]string, 0, len(e))
		for k := range e {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		f.Kind, f.Detail = KindUnknownFields, fmt.Sprintf("%s has fields olmcat does not know, which index.db cannot hold: %s", what, strings.Join(keys, ", "))
		r.loss(f)
	}
	for _, p := range cat.Packages {
		unknown(Finding{Package: p.Name}, "olm.package blob", p.Extra)
	}
	for _, ch := range cat.Channels {
		unknown(Finding{Package: ch.Package, Channel: ch.Name}, "olm.channel blob", ch.Extra)
		for _, e := range ch.Entries {
			unknown(Finding{Package: ch.Package, Channel: ch.Name, Bundle: e.Name}, "channel entry", e.Extra)
		}
	}
	for _, b := range cat.Bundles {
		unknown(Finding{Package: b.Package, Bundle: b.Name}, "olm.bundle blob", b.Extra)
		for _, ri := range b.RelatedImages {
			unknown(Finding{Package: b.Package, Bundle: b.Name}, "related image "+ri.Image, ri.Extra)
		}
	}
}
