package convert

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite"
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
}

// ToSQLite writes cat as a schema-13 index.db at out, the database opm v1.72's replaces-mode
// loader would have produced for the same content (docs/sqlite-fbc-mapping.md §5), so that
// `opm registry serve` answers from it as `opm serve` answers from the catalog, up to the known
// SQLite/FBC differences.
//
// An invalid catalog is refused with an *InvalidCatalogError unless opts.Permissive. Everything the
// database cannot hold is named in the returned report; with opts.Strict any loss fails the
// conversion with a *LossError (and the report). The output appears only when everything
// succeeded.
func ToSQLite(ctx context.Context, cat *fbc.Catalog, out string, opts ToSQLiteOptions) (*SQLiteReport, error) {
	r := &SQLiteReport{Output: out}
	m, err := validModel(cat, opts.Permissive, r)
	if err != nil {
		return nil, err
	}
	unrepresentableInSQLite(cat, r)

	w, err := sqlite.Create(ctx, out, opts.Force)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	for _, pkg := range m.SortedPackages() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows, err := packageToSQLite(pkg, r)
		if err != nil {
			return nil, fmt.Errorf("package %q: %w", pkg.Name, err)
		}
		if err := w.AddPackage(ctx, rows); err != nil {
			return nil, err
		}
		r.Written.Packages++
		r.Written.Channels += len(rows.Channels)
		r.Written.Bundles += len(rows.Bundles)
		for _, ch := range rows.Channels {
			r.Written.ChannelEntries += len(ch.Entries)
		}
	}
	r.sort()
	if opts.Strict && len(r.Losses) > 0 {
		return r, &LossError{Report: r}
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	return r, nil
}

// validModel builds the model of the catalog. An invalid catalog (opm's rules, plus what an index.db
// needs, see sqliteWritabilityIssues) is refused with every problem found; with permissive, the
// invalid packages, channels and bundles are left out and the issues recorded as r.Skipped.
func validModel(cat *fbc.Catalog, permissive bool, r *SQLiteReport) (*model.Model, error) {
	issues := model.ValidateCatalog(cat, model.Options{}).Errors()
	m, _ := model.FromCatalog(cat)
	if len(issues) == 0 {
		issues = sqliteWritabilityIssues(m).Errors()
		if len(issues) == 0 {
			return m, nil
		}
		if !permissive {
			return nil, &InvalidCatalogError{Issues: issues}
		}
		r.Skipped = append(issues, dropInvalidForSQLite(m, issues)...)
		return m, nil
	}
	if !permissive {
		return nil, &InvalidCatalogError{Issues: issues}
	}
	// FromCatalog already left out what it could not place (duplicates, blobs of unknown
	// packages); the model's own rules say what else to drop.
	r.Skipped = append(issues, dropInvalidForSQLite(m, model.Validate(m, model.Options{}).Errors())...)
	return m, nil
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
