package sqlite

import (
	"context"
	"database/sql"
)

// LegacyDependencyRewrite tells how many distinct dependency values a file at schema 8 or older
// holds. opm upgrades such a file with migration 009, whose
//
//	UPDATE dependencies SET value = (SELECT json_remove(value, "$.type") FROM dependencies
//	                                 WHERE operatorbundle_name=dependencies.operatorbundle_name)
//
// has a subquery whose WHERE compares the inner table with itself, so every row gets the first row's
// value. When the result is above 1, that rewrite would have lost data; this package keeps each
// row's own value. It is 0 for files at schema 9 or newer.
func (d *DB) LegacyDependencyRewrite(ctx context.Context) (int, error) {
	if d.version >= 9 {
		return 0, nil
	}
	var query string
	switch {
	case d.version == 8:
		query = `SELECT COUNT(DISTINCT CAST(value AS TEXT)) FROM dependencies`
	case d.version >= 3 && d.HasTable("api_requirer"):
		query = `SELECT COUNT(*) FROM (SELECT DISTINCT group_name, version, kind FROM api_requirer)`
	default:
		return d.countCSVRequiredAPIs(ctx)
	}
	var n int
	if err := d.sql.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return 0, classify(d.path, "counting dependency values", err)
	}
	return n, nil
}

// countCSVRequiredAPIs counts the distinct required APIs over every CSV (schemas before 3, which
// kept them only in the CSV).
func (d *DB) countCSVRequiredAPIs(ctx context.Context) (int, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT csv FROM operatorbundle WHERE csv IS NOT NULL`)
	if err != nil {
		return 0, classify(d.path, "reading table operatorbundle", err)
	}
	defer rows.Close()
	seen := map[GVK]bool{}
	for rows.Next() {
		var csv sql.RawBytes
		if err := rows.Scan(&csv); err != nil {
			return 0, classify(d.path, "reading table operatorbundle", err)
		}
		fields, err := ParseCSVFields(csv)
		if err != nil {
			continue
		}
		for _, g := range fields.RequiredAPIs {
			seen[g] = true
		}
	}
	if err := rows.Err(); err != nil {
		return 0, classify(d.path, "reading table operatorbundle", err)
	}
	return len(seen), nil
}
