package sqlite

import (
	"context"
	"database/sql"
	"hash/maphash"
	"strings"
)

// queryRowIndex maps bundle names (and channel entry keys) to the rowids of their rows. The
// index.db has no indexes on these columns, and a read-only file cannot be given any, so without
// this every GetBundle would scan whole tables. The answers are still read with SQL; only which
// rows to read is looked up here. Built on first use.
type queryRowIndex struct {
	props   *keyIndex // by bundle name; a lookup may add rows of another name (see keyIndex)
	deps    *keyIndex
	entries map[[3]string][]int64 // (package, channel, bundle) -> channel_entry rowids
	links   queryEntryLinks
}

// rowIndex returns the row index, building it on the first call; a failed build is retried by
// the next call.
func (q *Querier) rowIndex(ctx context.Context) (*queryRowIndex, error) {
	ix, err := q.index.get(ctx, q.buildRowIndex)
	if err != nil {
		return nil, q.wrap(err)
	}
	return ix, nil
}

func (q *Querier) buildRowIndex(ctx context.Context) (*queryRowIndex, error) {
	ix := &queryRowIndex{}
	seed := maphash.MakeSeed()
	var err error
	if ix.props, err = q.namesToRowids(ctx, "properties", seed); err != nil {
		return nil, err
	}
	if ix.deps, err = q.namesToRowids(ctx, "dependencies", seed); err != nil {
		return nil, err
	}
	if ix.links.gvkProps, err = q.gvkPropertyRows(ctx); err != nil {
		return nil, err
	}
	if ix.links.plurals, err = q.apiPlurals(ctx); err != nil {
		return nil, err
	}
	ix.entries = map[[3]string][]int64{}
	ix.links.byBundle = map[string][]int64{}
	ix.links.replacedBy = map[int64][]int64{}
	rows, err := q.db.QueryContext(ctx, `SELECT rowid, package_name, channel_name, operatorbundle_name, CAST(replaces AS INTEGER)
		FROM channel_entry ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var pkg, ch, name sql.NullString
		var replaces sql.NullInt64
		if err := rows.Scan(&id, &pkg, &ch, &name, &replaces); err != nil {
			return nil, err
		}
		if name.Valid {
			ix.links.byBundle[name.String] = append(ix.links.byBundle[name.String], id)
		}
		if replaces.Valid {
			ix.links.replacedBy[replaces.Int64] = append(ix.links.replacedBy[replaces.Int64], id)
		}
		if pkg.Valid && ch.Valid && name.Valid {
			k := [3]string{pkg.String, ch.String, name.String}
			ix.entries[k] = append(ix.entries[k], id)
		}
	}
	return ix, rows.Err()
}

func (q *Querier) namesToRowids(ctx context.Context, table string, seed maphash.Seed) (*keyIndex, error) {
	keys, _, err := scanKeyIndex(ctx, q.db, table, "0", seed)
	return keys, err
}

// rowidList renders rowids as a JSON array, for rowid IN (SELECT value FROM json_each(?)).
func rowidList(ids []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(itoa(id))
	}
	b.WriteByte(']')
	return b.String()
}

func itoa(v int64) string {
	var buf [20]byte
	i := len(buf)
	neg := v < 0
	if neg {
		v = -v
	}
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
