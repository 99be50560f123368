// Package tofbc reads a legacy SQLite index (opened by package sqlite) as the File-Based Catalog
// opm v1.72's `opm migrate` made of it, byte for byte where opm succeeded; where opm failed,
// panicked or silently lost data, it still produces a valid catalog and records each difference as
// a Departure. It is the index.db half of the catalog codecs: every command that reads an index.db
// as a catalog goes through it.
package tofbc

import (
	"context"
	"fmt"
	"runtime"
	"sort"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite"
)

// MigrateLevel is opm's --migrate-level: how far to rewrite bundles after conversion.
type MigrateLevel string

const (
	// LevelNone keeps olm.bundle.object properties (opm's default).
	LevelNone MigrateLevel = "none"
	// LevelCSVMetadata replaces the bundle objects of image bundles with one olm.csv.metadata.
	LevelCSVMetadata MigrateLevel = "bundle-object-to-csv-metadata"
)

// ParseMigrateLevel accepts "", "none" and "bundle-object-to-csv-metadata".
func ParseMigrateLevel(s string) (MigrateLevel, error) {
	switch MigrateLevel(s) {
	case "", LevelNone:
		return LevelNone, nil
	case LevelCSVMetadata:
		return LevelCSVMetadata, nil
	}
	return "", fmt.Errorf("unknown migration level %q: use %s or %s", s, LevelNone, LevelCSVMetadata)
}

// Options tune the conversion.
type Options struct {
	MigrateLevel MigrateLevel
	// Workers is how many packages are converted at once (0: one per CPU, at most 4). Packages are
	// still emitted one at a time, in order.
	Workers int
	// Packages, when set, limits Convert to the packages it accepts: the others are not read.
	Packages func(name string) bool
	// DeferBundles, where the file allows it (sqlite.DB.ContentsDeferrable), hands over the
	// bundles unbuilt (fbc.DeferredBundle): the contents of a bundle (manifests, properties,
	// related images), most of an index.db, are read and built when the bundle is decoded
	// (fbc.DecodeBundles), so that a reader keeping a few bundles builds only those. The Report
	// then holds no departure about the contents of the bundles (an unreadable manifest, an
	// invalid property); the catalog of a decoded bundle is the same.
	DeferBundles bool
}

// EmitFunc receives the catalog of one package. The catalog is not used after emit returns.
type EmitFunc func(pkg string, c *fbc.Catalog) error

// Convert converts every package of the index and hands each package's catalog to emit, one at a
// time, in package-name order. Packages are read and converted by a few workers; memory holds the
// rows and blobs of at most two packages per worker, whatever the size of the index.
func Convert(ctx context.Context, db *sqlite.DB, opts Options, emit EmitFunc) (*Report, error) {
	if opts.MigrateLevel == "" {
		opts.MigrateLevel = LevelNone
	}
	r := &Report{Input: db.Path(), SchemaVersion: db.SchemaVersion()}
	if db.VersionInferred() {
		r.add(Departure{Code: SchemaVersionInferred,
			Opm:    "finds no version in schema_migrations, re-runs every migration from 0 and fails",
			Olmcat: fmt.Sprintf("read the file as schema version %d, the newest its tables and columns match", db.SchemaVersion())})
	}
	if n, err := db.LegacyDependencyRewrite(ctx); err != nil {
		return nil, err
	} else if n > 1 {
		r.add(Departure{Code: DependencyValuesKept,
			Opm:    fmt.Sprintf("upgrades this schema-%d file with migration 009, whose UPDATE overwrites every dependency value with the first row's value (%d distinct values become one)", db.SchemaVersion(), n),
			Olmcat: "keeps each bundle's own required APIs"})
	}
	refs, err := db.Packages(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Packages != nil {
		kept := refs[:0:0]
		for _, ref := range refs {
			if opts.Packages(ref.Name) {
				kept = append(kept, ref)
			}
		}
		refs = kept
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	err = inOrder(ctx, len(refs), workers, func(workCtx context.Context, i int) packageResult {
		// A deferred bundle is built after its package is handed over, when the workers'
		// context may be done: it reads with the caller's.
		return convertPackage(workCtx, ctx, db, opts, refs[i])
	}, func(i int, res packageResult) error {
		r.Departures = append(r.Departures, res.departures...)
		if res.cat == nil {
			return nil
		}
		r.Packages++
		r.Bundles += len(res.cat.Bundles)
		return emit(refs[i].Name, res.cat)
	})
	if err != nil {
		return nil, err
	}
	r.Sort()
	return r, nil
}

// packageResult is one package's conversion: its catalog (nil when nothing can be written) and the
// departures found on the way.
type packageResult struct {
	cat        *fbc.Catalog
	departures []Departure
	err        error
}

func convertPackage(ctx, buildCtx context.Context, db *sqlite.DB, opts Options, ref sqlite.PackageRef) packageResult {
	deferBundles := opts.DeferBundles && db.ContentsDeferrable()
	read := db.ReadPackage
	if deferBundles {
		read = db.ReadPackageGraph
		ctx = buildCtx
	}
	data, err := read(ctx, ref)
	if err != nil {
		return packageResult{err: err}
	}
	local := &Report{}
	pc := &packageConverter{ctx: ctx, db: db, opts: opts, report: local, data: data, deferBundles: deferBundles}
	cat, err := pc.convert()
	if err != nil {
		return packageResult{err: fmt.Errorf("package %q: %w", ref.Name, err)}
	}
	return packageResult{cat: cat, departures: local.Departures}
}

// packageConverter holds the state of one package's conversion.
type packageConverter struct {
	ctx    context.Context
	db     *sqlite.DB
	opts   Options
	report *Report
	data   *sqlite.PackageData
	// deferBundles: bundles are handed over unbuilt, and BuildBundles builds them.
	deferBundles bool

	bundles  map[string]*bundleBuild // kept bundles, by name
	channels map[string]*channelGraph
}

func (pc *packageConverter) depart(d Departure) {
	d.Package = pc.data.Name
	pc.report.add(d)
}

// convert builds the package's catalog; nil when nothing of the package can be written.
func (pc *packageConverter) convert() (*fbc.Catalog, error) {
	p := pc.data
	if !p.InPackageTable {
		pc.depart(Departure{Code: PackageRowMissing,
			Opm:    fmt.Sprintf("fails: unknown package %q for its bundles", p.Name),
			Olmcat: "writes the package from its channel entries"})
	}
	if err := pc.buildBundles(); err != nil {
		return nil, err
	}
	pc.buildChannels()
	for _, name := range sortedNames(pc.channels) {
		pc.repairGraph(pc.channels[name])
	}
	pc.dropEmptyChannels()
	if len(pc.channels) == 0 {
		pc.depart(Departure{Code: PackageDropped,
			Opm:    "fails (a package needs at least one channel with a bundle)",
			Olmcat: "leaves the package out: none of its channels has a bundle that can be written"})
		return nil, nil
	}
	pkg, err := pc.buildPackage()
	if err != nil {
		return nil, err
	}
	cat := &fbc.Catalog{Packages: []fbc.Package{*pkg}}
	for _, name := range sortedNames(pc.channels) {
		cat.Channels = append(cat.Channels, pc.channels[name].blob(p.Name))
	}
	var deprecated []fbc.DeprecationEntry
	for _, name := range sortedNames(pc.bundles) {
		b := pc.bundles[name]
		if !pc.inAnyChannel(name) {
			continue
		}
		if pc.deferBundles {
			cat.Bundles = append(cat.Bundles, fbc.DeferredBundle(name, p.Name, fbc.Location{}, pc))
		} else {
			if pc.opts.MigrateLevel == LevelCSVMetadata {
				pc.csvMetadata(b)
			}
			cat.Bundles = append(cat.Bundles, b.blob)
		}
		if b.deprecated {
			deprecated = append(deprecated, fbc.DeprecationEntry{
				Reference: fbc.Reference{Schema: fbc.SchemaBundle, Name: name},
				Message:   deprecationMessage,
			})
		}
	}
	if len(deprecated) > 0 {
		cat.Deprecations = []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: p.Name, Entries: deprecated}}
	}
	return cat, nil
}

const deprecationMessage = "This bundle was deprecated in the SQLite index this catalog was migrated from (olm.deprecated)."

func (pc *packageConverter) inAnyChannel(bundle string) bool {
	for _, ch := range pc.channels {
		if _, ok := ch.entries[bundle]; ok {
			return true
		}
	}
	return false
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
