package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/olmcat/olmcat/internal/scratch"
)

// queryUpgradedCopy serves an index older than schema version 9 the way opm registry serve did:
// from a private temporary copy that has the tables and columns the serving queries read, filled
// as opm's migrations would have filled them (the rows DB.ReadPackage derives for old schemas).
// The input file is only read. The caller calls remove when done with the copy.
func queryUpgradedCopy(ctx context.Context, path string) (tmp string, remove func() error, err error) {
	src, err := Open(path)
	if err != nil {
		return "", nil, err
	}
	defer src.Close()
	bundles, err := queryLegacyBundles(ctx, src)
	if err != nil {
		return "", nil, err
	}
	tmp, remove, err = copyToTemp(path)
	if err != nil {
		return "", nil, err
	}
	if err := queryAddServingTables(ctx, tmp, src, bundles); err != nil {
		remove()
		return "", nil, fmt.Errorf("prepare a served copy of %s (schema version %d): %w", path, src.SchemaVersion(), err)
	}
	return tmp, remove, nil
}

func queryLegacyBundles(ctx context.Context, src *DB) ([]*BundleRow, error) {
	refs, err := src.Packages(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]*BundleRow{}
	for _, ref := range refs {
		p, err := src.ReadPackage(ctx, ref)
		if err != nil {
			return nil, err
		}
		for name, b := range p.Bundles {
			byName[name] = b
		}
	}
	out := make([]*BundleRow, 0, len(byName))
	for _, b := range byName {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// copyToTemp copies path to a temporary file, tracked and locked (see package scratch: removed on
// a signal, and by the next run if this one is killed).
func copyToTemp(path string) (string, func() error, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer in.Close()
	out, remove, err := scratch.CreateTemp("", "olmcat-serve-index-*.db")
	if err != nil {
		return "", nil, fmt.Errorf("copy %s to serve it: %w", path, err)
	}
	_, err = io.Copy(out, in)
	if err = errors.Join(err, out.Close()); err != nil {
		remove()
		return "", nil, fmt.Errorf("copy %s to serve it: %w", path, err)
	}
	return out.Name(), remove, nil
}

// queryAddServingTables adds what schemas before 9 lack. Migration 009 wrote olm.gvk property
// values as BLOB and 008/009 left dependency values as TEXT; the copy keeps those storage
// classes, since the provider queries compare values as TEXT.
func queryAddServingTables(ctx context.Context, file string, src *DB, bundles []*BundleRow) error {
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, col := range []string{"bundlepath", "version", "skiprange"} {
		if !src.HasColumn("operatorbundle", col) {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE operatorbundle ADD COLUMN `+col+` TEXT`); err != nil {
				return err
			}
		}
	}
	for _, table := range []string{"properties", "dependencies"} {
		if src.HasTable(table) {
			if _, err := tx.ExecContext(ctx, `DROP TABLE `+table); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE `+table+` (type TEXT, value TEXT,
			operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT)`); err != nil {
			return err
		}
	}
	for _, b := range bundles {
		if _, err := tx.ExecContext(ctx, `UPDATE operatorbundle SET bundlepath = ?, version = ?, skiprange = ? WHERE name = ?`,
			b.BundlePath, b.Version, b.SkipRange, b.Name); err != nil {
			return err
		}
		for _, p := range b.Properties {
			var value any = p.Value
			if p.Type == queryGVKType {
				value = []byte(p.Value)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO properties VALUES (?, ?, ?, ?, ?)`, p.Type, value, b.Name, b.Version, b.BundlePath); err != nil {
				return err
			}
		}
		for _, d := range b.Dependencies {
			if _, err := tx.ExecContext(ctx, `INSERT INTO dependencies VALUES (?, ?, ?, ?, ?)`, d.Type, d.Value, b.Name, b.Version, b.BundlePath); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}
