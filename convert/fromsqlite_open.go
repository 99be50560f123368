package convert

import (
	"context"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// Opening any catalog input: an index.db (recognized by the SQLite header, whatever its name) is
// converted as `olmcat migrate` converts it; anything else (a directory, a JSON/YAML file, "-" for
// standard input) is read as a File-Based Catalog.

// IsIndexDB reports whether path is a SQLite index database (by its magic header). "-" is not.
func IsIndexDB(path string) (bool, error) {
	if path == "-" {
		return false, nil
	}
	return sqlite.IsSQLiteFile(path)
}

// WalkCatalog calls fn once per package of the catalog at path, in package-name order, holding one
// package at a time where the input allows (see fbc.WalkPackages for FBC inputs). For an index.db the
// report lists the departures from opm migrate; for an FBC input it is nil.
func WalkCatalog(ctx context.Context, path string, opts tofbc.Options, fn tofbc.EmitFunc) (*tofbc.Report, error) {
	isDB, err := IsIndexDB(path)
	if err != nil {
		return nil, err
	}
	if !isDB {
		return nil, fbc.WalkPackages(path, fn)
	}
	db, err := sqlite.Open(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return tofbc.Convert(ctx, db, opts, fn)
}

// LoadCatalog reads the whole catalog at path into memory: an index.db converted (with the report of
// departures from opm migrate), or a File-Based Catalog loaded (report nil). For an FBC input, an
// error may come with what could be loaded (see fbc.Load).
func LoadCatalog(ctx context.Context, path string, opts tofbc.Options) (*fbc.Catalog, *tofbc.Report, error) {
	isDB, err := IsIndexDB(path)
	if err != nil {
		return nil, nil, err
	}
	if !isDB {
		c, err := fbc.Load(path)
		return c, nil, err
	}
	all := &fbc.Catalog{}
	report, err := WalkCatalog(ctx, path, opts, func(_ string, c *fbc.Catalog) error {
		all.Append(c)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return all, report, nil
}
