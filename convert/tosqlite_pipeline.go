package convert

import (
	"context"
	"errors"
	"fmt"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite"
)

// sqliteConversion turns parts of a catalog (one or a few packages each) into rows.
type sqliteConversion struct {
	r      *SQLiteReport
	opts   ToSQLiteOptions
	owners map[string]string // bundle name -> package, across parts
	// invalid collects validation issues; once there is one (and not Permissive) nothing more is
	// converted, but the remaining parts are still validated so that every problem is reported.
	invalid model.Issues
}

// toSQLite runs the conversion as a pipeline of three goroutines: walk reads the catalog one part
// at a time, the converter validates each part and builds its rows, and the writer stores them. The
// stages overlap (reading and decoding JSON is about as costly as the rest), and memory holds only
// the few parts in flight. The report is only touched by the converter.
func toSQLite(ctx context.Context, out string, opts ToSQLiteOptions, walk func(add func(*fbc.Catalog) error) error) (*SQLiteReport, error) {
	w, err := sqlite.Create(ctx, out, opts.Force)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	stopped := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &sqliteConversion{r: &SQLiteReport{Output: out}, opts: opts, owners: map[string]string{}}

	parts := make(chan *fbc.Catalog, 1)
	rows := make(chan *sqlite.PackageOut, 1)
	var walkErr, convertErr, writeErr error
	go func() {
		defer close(parts)
		walkErr = walk(func(part *fbc.Catalog) error {
			select {
			case parts <- part:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	go func() {
		defer close(rows)
		for part := range parts {
			if convertErr == nil {
				if convertErr = c.convert(ctx, part, rows); convertErr != nil {
					cancel()
				}
			}
		}
	}()
	for p := range rows {
		if writeErr == nil {
			if writeErr = w.AddPackage(ctx, p); writeErr != nil {
				cancel()
			}
		}
	}
	// rows is closed: the converter has returned, and it only does so once the walk closed parts.
	if err := stopped.Err(); err != nil {
		// Stopped from outside (a signal): whatever a stage said as it was cut off ("sql:
		// statement is closed", "interrupted") is a consequence, not the news.
		return nil, err
	}
	for _, err := range []error{writeErr, convertErr, walkErr} {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.invalid) > 0 {
		return nil, &InvalidCatalogError{Issues: c.invalid}
	}
	c.r.sort()
	if opts.Strict && len(c.r.Losses) > 0 {
		return c.r, &LossError{Report: c.r}
	}
	// BeforeCommit writes what is published with the database (the --report), so it sees the
	// report as it will be once the database is in place: committed.
	c.r.Committed = true
	if opts.BeforeCommit != nil {
		if err := opts.BeforeCommit(c.r); err != nil {
			c.r.Committed = false
			return nil, err
		}
	}
	if err := w.Commit(); err != nil {
		c.r.Committed = false
		return nil, err
	}
	return c.r, nil
}

// convert validates one part of the catalog and sends the rows of its packages.
func (c *sqliteConversion) convert(ctx context.Context, part *fbc.Catalog, out chan<- *sqlite.PackageOut) error {
	m, skipped, invalid := c.validModel(part)
	c.invalid = append(c.invalid, invalid...)
	c.r.Skipped = append(c.r.Skipped, skipped...)
	if len(c.invalid) > 0 {
		return nil
	}
	unrepresentableInSQLite(part, c.r)
	for _, pkg := range m.SortedPackages() {
		rows, err := packageToSQLite(pkg, c.r)
		if err != nil {
			return fmt.Errorf("package %q: %w", pkg.Name, err)
		}
		for i := range rows.Bundles {
			c.owners[rows.Bundles[i].Name] = pkg.Name
		}
		c.r.Written.Packages++
		c.r.Written.Channels += len(rows.Channels)
		c.r.Written.Bundles += len(rows.Bundles)
		for _, ch := range rows.Channels {
			c.r.Written.ChannelEntries += len(ch.Entries)
		}
		select {
		case out <- rows:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
