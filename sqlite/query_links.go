package sqlite

import (
	"context"
	"database/sql"
	"slices"
)

// queryEntryLinks narrows the replaces and provides queries to the few rows that can match. The
// index.db has no index on channel_entry.replaces, channel_entry.operatorbundle_name or
// properties.value, so those queries scanned whole tables on every call. Each set here is a
// superset of the rows the query's own conditions accept: the queries keep every condition, so
// which rows match (SQLite's comparison rules, BLOB values included) is still decided by SQL.
type queryEntryLinks struct {
	byBundle   map[string][]int64 // operatorbundle_name -> channel_entry rowids
	replacedBy map[int64][]int64  // CAST(replaces AS INTEGER) -> rowids of the entries replacing it
	gvkProps   map[string][]queryPropertyRef
	plurals    map[[3]string]string // api (group_name, version, kind) -> plural
}

// queryPropertyRef is an olm.gvk properties row, keyed in gvkProps by CAST(value AS TEXT).
type queryPropertyRef struct {
	rowid  int64
	bundle sql.NullString
}

func (q *Querier) gvkPropertyRows(ctx context.Context) (map[string][]queryPropertyRef, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT rowid, CAST(value AS TEXT), operatorbundle_name
		FROM properties WHERE type = ? ORDER BY rowid`, queryGVKType)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]queryPropertyRef{}
	for rows.Next() {
		var ref queryPropertyRef
		var value sql.NullString
		if err := rows.Scan(&ref.rowid, &value, &ref.bundle); err != nil {
			return nil, err
		}
		if value.Valid {
			out[value.String] = append(out[value.String], ref)
		}
	}
	return out, rows.Err()
}

// replacersOf returns the rowids, ascending and distinct, of the entries whose replaces may
// point at one of the entries olds.
func (l *queryEntryLinks) replacersOf(olds []int64) []int64 {
	var out []int64
	for _, id := range olds {
		out = append(out, l.replacedBy[id]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// providers returns the olm.gvk properties rows whose value may equal value, and the channel
// entries of their bundles, each as ascending distinct rowids.
func (l *queryEntryLinks) providers(value string) (props, entries []int64) {
	seen := map[string]bool{}
	for _, ref := range l.gvkProps[value] {
		props = append(props, ref.rowid)
		if ref.bundle.Valid && !seen[ref.bundle.String] {
			seen[ref.bundle.String] = true
			entries = append(entries, l.byBundle[ref.bundle.String]...)
		}
	}
	slices.Sort(entries)
	return props, slices.Compact(entries)
}

// apiPlurals reads the api table, whose primary key makes each text (group, version, kind) unique.
// Keys that are not all text can never equal the text a lookup asks for, so they are left out.
func (q *Querier) apiPlurals(ctx context.Context) (map[[3]string]string, error) {
	rows, err := q.db.QueryContext(ctx, `SELECT group_name, version, kind, plural FROM api
		WHERE typeof(group_name) = 'text' AND typeof(version) = 'text' AND typeof(kind) = 'text'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[3]string]string{}
	for rows.Next() {
		var k [3]string
		var plural sql.NullString
		if err := rows.Scan(&k[0], &k[1], &k[2], &plural); err != nil {
			return nil, err
		}
		if _, dup := out[k]; !dup {
			out[k] = plural.String
		}
	}
	return out, rows.Err()
}
