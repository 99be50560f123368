package convert

import (
	"context"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// MigrateOptions are the options of `olmcat migrate`.
type MigrateOptions struct {
	Format fbc.Format // fbc.JSON (default) or fbc.YAML
	// Strict turns every departure into an error: nothing is written.
	Strict bool
	// Force replaces a non-empty output directory.
	Force bool
	// BeforeCommit, if set, runs once the whole catalog is written and before it is moved into
	// place; an error aborts the migration (nothing is left at the output). Callers write what
	// must not appear without the output, e.g. a report, here.
	BeforeCommit func(*Summary) error
}

// Summary is what a migration wrote, and for an index.db where it departed from opm.
type Summary struct {
	Packages, Bundles int
	// Departures is the report of an index.db's conversion; nil for an FBC input.
	Departures *tofbc.Report
}

// StrictError is returned by Migrate in strict mode when the conversion departed from opm.
type StrictError struct{ Report *tofbc.Report }

func (e *StrictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s from opm v1.72 migrate and --strict is set; nothing was written", e.Report.Input, plural.Of(len(e.Report.Departures), "departure"))
	for i, d := range e.Report.Departures {
		if i == 10 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Report.Departures)-10)
			break
		}
		b.WriteString("\n  " + d.String())
	}
	return b.String()
}

// Migrate writes the catalog of src as a File-Based Catalog directory, one
// <package>/catalog.<json|yaml> per package as opm migrate writes it (blobs of no package in
// outDir/catalog.<ext>). An index.db is converted as opm migrate did (see tofbc); an FBC is
// rewritten in opm's layout, its unpacked objects back inline. The output appears atomically: on
// any error (or, in strict mode, any departure) nothing is left at outDir.
func Migrate(ctx context.Context, src *source.Source, outDir string, opts MigrateOptions) (*Summary, error) {
	if opts.Format == "" {
		opts.Format = fbc.JSON
	}
	target, err := atomicout.Dir(outDir, opts.Force)
	if err != nil {
		return nil, err
	}
	defer target.Abort()
	sum := &Summary{}
	layout := ops.NewLayout(target.Path(), opts.Format)
	err = src.WalkPackages(ctx, func(pkg string, c *fbc.Catalog) error {
		sum.Packages += len(c.Packages)
		sum.Bundles += len(c.Bundles)
		return target.Err(layout.Write(pkg, c))
	})
	if err != nil {
		return nil, err
	}
	sum.Departures = src.Departures()
	if r := sum.Departures; r != nil && opts.Strict && len(r.Departures) > 0 {
		return sum, &StrictError{Report: r}
	}
	if opts.BeforeCommit != nil {
		if err := opts.BeforeCommit(sum); err != nil {
			return nil, err
		}
	}
	if err := target.Commit(); err != nil {
		return nil, err
	}
	return sum, nil
}

// MigratePath is Migrate for a catalog reference (see source.Parse).
func MigratePath(ctx context.Context, ref, outDir string, opts MigrateOptions, srcOpts source.Options) (*Summary, error) {
	src, err := source.Open(ctx, ref, srcOpts)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return Migrate(ctx, src, outDir, opts)
}
