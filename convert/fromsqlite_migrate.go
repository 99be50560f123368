package convert

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// MigrateOptions are the options of `olmcat migrate`.
type MigrateOptions struct {
	tofbc.Options
	Format fbc.Format // fbc.JSON (default) or fbc.YAML
	// Strict turns every departure into an error: nothing is written.
	Strict bool
	// Force replaces a non-empty output directory.
	Force bool
}

// StrictError is returned by MigrateSQLite in strict mode when the conversion departed from opm.
type StrictError struct{ Report *tofbc.Report }

func (e *StrictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d departure(s) from opm v1.72 migrate and --strict is set; nothing was written", e.Report.Input, len(e.Report.Departures))
	for i, d := range e.Report.Departures {
		if i == 10 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Report.Departures)-10)
			break
		}
		b.WriteString("\n  " + d.String())
	}
	return b.String()
}

// MigrateSQLite converts the index database at input into a File-Based Catalog directory, one
// <package>/catalog.<json|yaml> per package as opm migrate writes it. The output appears atomically:
// on any error (or, in strict mode, any departure) nothing is left at outDir. The input is opened
// read-only and is not changed.
func MigrateSQLite(ctx context.Context, input, outDir string, opts MigrateOptions) (*tofbc.Report, error) {
	if opts.Format == "" {
		opts.Format = fbc.JSON
	}
	db, err := sqlite.Open(input)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	target, err := atomicout.Dir(outDir, opts.Force)
	if err != nil {
		return nil, err
	}
	defer target.Abort()
	root := target.Path()
	report, err := tofbc.Convert(ctx, db, opts.Options, func(pkg string, c *fbc.Catalog) error {
		return writePackageFile(filepath.Join(root, pkg), c, opts.Format)
	})
	if err != nil {
		return nil, err
	}
	if opts.Strict && len(report.Departures) > 0 {
		return report, &StrictError{Report: report}
	}
	if err := target.Commit(); err != nil {
		return nil, err
	}
	return report, nil
}

func writePackageFile(dir string, c *fbc.Catalog, format fbc.Format) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	name := filepath.Join(dir, "catalog"+format.Ext())
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create output file: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fbc.Write(w, c, format); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
