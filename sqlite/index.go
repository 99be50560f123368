package sqlite

import (
	"context"
	"database/sql"
	"hash/maphash"
	"sort"
	"strings"
)

// rowIndex maps packages and bundle names to the rowids of their rows. None of the tables has an
// index on those columns, so querying them per package would scan each table once per package;
// instead each table is scanned once for (rowid, key) and the rows themselves are fetched per
// package by rowid. The index holds no row contents: runs of a package's channel entries, a bit
// per entry (chainIndex) and a run of rowids per bundle and table (keyIndex): about 0.1 kB a
// bundle.
type rowIndex struct {
	channels         map[string][]ChannelRow // by package, sorted by name
	entriesByPackage map[string][]idRun
	properties       *keyIndex
	dependencies     *keyIndex
	images           *keyIndex
	// deprecated are the bundles with an olm.deprecated properties row (schema 9 and later).
	deprecated map[string]bool
}

func (d *DB) index(ctx context.Context) (*rowIndex, error) {
	d.indexMu.Lock()
	defer d.indexMu.Unlock()
	if d.rows != nil {
		return d.rows, nil
	}
	idx := &rowIndex{}
	seed := maphash.MakeSeed()
	var err error
	if idx.channels, err = d.scanChannels(ctx); err != nil {
		return nil, err
	}
	if idx.entriesByPackage, err = d.scanEntries(ctx); err != nil {
		return nil, err
	}
	if d.version >= 9 {
		if idx.properties, idx.deprecated, err = d.scanPropertyKeys(ctx, seed); err != nil {
			return nil, err
		}
	}
	if d.version >= 8 {
		if idx.dependencies, err = d.scanKeys(ctx, "dependencies", seed); err != nil {
			return nil, err
		}
	}
	if d.version >= 1 {
		if idx.images, err = d.scanKeys(ctx, "related_image", seed); err != nil {
			return nil, err
		}
	}
	d.rows = idx
	return idx, nil
}

// idRun is the ids start, start+1, ..., start+n-1.
type idRun struct{ start, n int64 }

// scanEntries groups channel_entry ids by package, as runs of consecutive ids (opm writes a
// bundle's entries together), and, in the same pass, computes which entries lie on a replaces
// chain from the global minimum depth (see edges.go).
func (d *DB) scanEntries(ctx context.Context) (map[string][]idRun, error) {
	const while = "reading table channel_entry"
	rows, err := d.sql.QueryContext(ctx, `SELECT entry_id, package_name, replaces, depth FROM channel_entry ORDER BY entry_id`)
	if err != nil {
		return nil, classify(d.path, while, err)
	}
	defer rows.Close()
	byPackage := map[string][]idRun{}
	graph := newChainBuilder()
	var (
		lastPkg  []byte
		lastRuns []idRun
	)
	for rows.Next() {
		var (
			id       int64
			pkg      sql.RawBytes
			replaces sql.NullInt64
			depth    sql.NullInt64
		)
		if err := rows.Scan(&id, &pkg, &replaces, &depth); err != nil {
			return nil, classify(d.path, while, err)
		}
		graph.add(id, replaces, depth)
		if pkg == nil {
			continue
		}
		runs := lastRuns
		if lastPkg == nil || string(pkg) != string(lastPkg) {
			runs = byPackage[string(pkg)]
		}
		if n := len(runs); n > 0 && runs[n-1].start+runs[n-1].n == id {
			runs[n-1].n++ // in the array the map holds
		} else {
			runs = append(runs, idRun{start: id, n: 1})
			byPackage[string(pkg)] = runs
		}
		lastPkg, lastRuns = append(lastPkg[:0], pkg...), runs
	}
	if err := rows.Err(); err != nil {
		return nil, classify(d.path, while, err)
	}
	d.chain = graph.build()
	return byPackage, nil
}

// runIDs lists the ids of runs, ascending (the scan met them in ascending order).
func runIDs(runs []idRun) []int64 {
	var ids []int64
	for _, r := range runs {
		for id := r.start; id < r.start+r.n; id++ {
			ids = append(ids, id)
		}
	}
	return ids
}

// scanChannels reads the channel table once: its primary key starts with the channel's name, so
// a query per package would scan the whole table for every package.
func (d *DB) scanChannels(ctx context.Context) (map[string][]ChannelRow, error) {
	const while = "reading table channel"
	rows, err := d.sql.QueryContext(ctx, `SELECT name, package_name, head_operatorbundle_name FROM channel`)
	if err != nil {
		return nil, classify(d.path, while, err)
	}
	defer rows.Close()
	out := map[string][]ChannelRow{}
	for rows.Next() {
		var name, pkg, head sql.NullString
		if err := rows.Scan(&name, &pkg, &head); err != nil {
			return nil, classify(d.path, while, err)
		}
		if name.Valid && pkg.Valid {
			out[pkg.String] = append(out[pkg.String], ChannelRow{Name: name.String, Head: head})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, classify(d.path, while, err)
	}
	for _, chs := range out {
		sort.Slice(chs, func(i, j int) bool { return chs[i].Name < chs[j].Name })
	}
	return out, nil
}

// scanKeys indexes the rowids of a table by operatorbundle_name.
func (d *DB) scanKeys(ctx context.Context, table string, seed maphash.Seed) (*keyIndex, error) {
	out, _, err := d.scanKeysMarking(ctx, table, "0", seed)
	return out, err
}

// scanPropertyKeys is scanKeys of the properties table, and the bundles with an olm.deprecated
// row: what a conversion needs to know of a bundle it does not build (ReadPackageGraph).
func (d *DB) scanPropertyKeys(ctx context.Context, seed maphash.Seed) (*keyIndex, map[string]bool, error) {
	return d.scanKeysMarking(ctx, "properties", `type = 'olm.deprecated'`, seed)
}

// scanKeysMarking is scanKeys, and the names of the rows for which the SQL condition mark holds.
func (d *DB) scanKeysMarking(ctx context.Context, table, mark string, seed maphash.Seed) (*keyIndex, map[string]bool, error) {
	keys, marked, err := scanKeyIndex(ctx, d.sql, table, mark, seed)
	if err != nil {
		return nil, nil, classify(d.path, "reading table "+table, err)
	}
	return keys, marked, nil
}

// scanKeyIndex reads (rowid, operatorbundle_name) of every row of table, in one scan, into a
// keyIndex, with the names of the rows for which the SQL condition mark holds ("0": none).
func scanKeyIndex(ctx context.Context, db *sql.DB, table, mark string, seed maphash.Seed) (*keyIndex, map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT rowid, operatorbundle_name, coalesce(`+mark+`, 0) FROM `+table+` ORDER BY rowid`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	out := newKeyIndex(seed)
	marked := map[string]bool{}
	for rows.Next() {
		var (
			rowid  int64
			name   sql.RawBytes
			isMark bool
		)
		if err := rows.Scan(&rowid, &name, &isMark); err != nil {
			return nil, nil, err
		}
		if name == nil {
			continue
		}
		out.add(name, rowid)
		if isMark {
			marked[string(name)] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	out.finish()
	return out, marked, nil
}

// Packages lists every package: the package table's rows plus any name that only channel_entry uses,
// sorted by name.
func (d *DB) Packages(ctx context.Context) ([]PackageRef, error) {
	const while = "reading table package"
	idx, err := d.index(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT name, default_channel FROM package`)
	if err != nil {
		return nil, classify(d.path, while, err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out []PackageRef
	for rows.Next() {
		var name, def sql.NullString
		if err := rows.Scan(&name, &def); err != nil {
			return nil, classify(d.path, while, err)
		}
		if !name.Valid || seen[name.String] {
			continue
		}
		seen[name.String] = true
		out = append(out, PackageRef{Name: name.String, InPackageTable: true, DefaultChannel: def})
	}
	if err := rows.Err(); err != nil {
		return nil, classify(d.path, while, err)
	}
	for name := range idx.entriesByPackage {
		if !seen[name] {
			out = append(out, PackageRef{Name: name})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// inSizes are the lengths of the IN lists that readers' statements are prepared with. A list is
// cut into pieces of at most the largest size, and each piece padded with NULLs (which match
// nothing) up to the next size: a handful of statement texts serve every query, and SQLite parses
// each once per connection instead of once per package.
var inSizes = []int{8, 32, 128, 512}

// eachIn runs prefix + "(?,?,...)" + suffix for the keys, a piece at a time, and hands every row to
// scan. Rows come piece by piece, so keys sorted ascending give rows in the order of an ORDER BY
// on the key column.
func (d *DB) eachIn(ctx context.Context, while, prefix, suffix string, keys []any, scan func(*sql.Rows) error) error {
	for len(keys) > 0 {
		size := inSizes[len(inSizes)-1]
		for _, s := range inSizes {
			if len(keys) <= s {
				size = s
				break
			}
		}
		args := make([]any, size)
		n := copy(args, keys)
		keys = keys[n:]
		stmt, err := d.prepared(ctx, prefix+"("+strings.TrimSuffix(strings.Repeat("?,", size), ",")+")"+suffix)
		if err != nil {
			return classify(d.path, while, err)
		}
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return classify(d.path, while, err)
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return classify(d.path, while, err)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return classify(d.path, while, err)
		}
	}
	return nil
}

// prepared returns the statement for text, prepared once and kept until Close.
func (d *DB) prepared(ctx context.Context, text string) (*sql.Stmt, error) {
	d.stmtMu.Lock()
	defer d.stmtMu.Unlock()
	if st := d.stmts[text]; st != nil {
		return st, nil
	}
	st, err := d.sql.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if d.stmts == nil {
		d.stmts = map[string]*sql.Stmt{}
	}
	d.stmts[text] = st
	return st, nil
}

// int64Args and stringArgs are keys for eachIn.
func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func stringArgs(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}
