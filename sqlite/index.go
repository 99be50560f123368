package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// rowIndex maps packages and bundle names to the rowids of their rows. None of the tables has an
// index on those columns, so querying them per package would scan each table once per package;
// instead each table is scanned once for (rowid, key) and the rows themselves are fetched per
// package by rowid. The index holds a few integers per row and no row contents.
type rowIndex struct {
	channels         map[string][]ChannelRow // by package, sorted by name
	entriesByPackage map[string][]int64
	properties       map[string][]int64
	dependencies     map[string][]int64
	images           map[string][]int64
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
	var err error
	if idx.channels, err = d.scanChannels(ctx); err != nil {
		return nil, err
	}
	if idx.entriesByPackage, err = d.scanEntries(ctx); err != nil {
		return nil, err
	}
	if d.version >= 9 {
		if idx.properties, idx.deprecated, err = d.scanPropertyKeys(ctx); err != nil {
			return nil, err
		}
	}
	if d.version >= 8 {
		if idx.dependencies, err = d.scanKeys(ctx, "dependencies"); err != nil {
			return nil, err
		}
	}
	if d.version >= 1 {
		if idx.images, err = d.scanKeys(ctx, "related_image"); err != nil {
			return nil, err
		}
	}
	d.rows = idx
	return idx, nil
}

// scanEntries groups channel_entry ids by package and, in the same pass, computes which entries lie
// on a replaces chain from the global minimum depth (see edges.go).
func (d *DB) scanEntries(ctx context.Context) (map[string][]int64, error) {
	const while = "reading table channel_entry"
	rows, err := d.sql.QueryContext(ctx, `SELECT entry_id, package_name, replaces, depth FROM channel_entry`)
	if err != nil {
		return nil, classify(d.path, while, err)
	}
	defer rows.Close()
	byPackage := map[string][]int64{}
	graph := newChainBuilder()
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
		list, ok := byPackage[string(pkg)]
		if !ok {
			byPackage[string(pkg)] = []int64{id}
			continue
		}
		byPackage[string(pkg)] = append(list, id)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(d.path, while, err)
	}
	for _, ids := range byPackage {
		slices.Sort(ids)
	}
	d.chain = graph.build()
	return byPackage, nil
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

// scanKeys maps each operatorbundle_name of a table to its rowids, in rowid order.
func (d *DB) scanKeys(ctx context.Context, table string) (map[string][]int64, error) {
	out, _, err := d.scanKeysMarking(ctx, table, "0")
	return out, err
}

// scanPropertyKeys is scanKeys of the properties table, and the bundles with an olm.deprecated
// row: what a conversion needs to know of a bundle it does not build (ReadPackageGraph).
func (d *DB) scanPropertyKeys(ctx context.Context) (map[string][]int64, map[string]bool, error) {
	return d.scanKeysMarking(ctx, "properties", `type = 'olm.deprecated'`)
}

// scanKeysMarking is scanKeys, and the names of the rows for which the SQL condition mark holds.
func (d *DB) scanKeysMarking(ctx context.Context, table, mark string) (map[string][]int64, map[string]bool, error) {
	while := "reading table " + table
	rows, err := d.sql.QueryContext(ctx, `SELECT rowid, operatorbundle_name, coalesce(`+mark+`, 0) FROM `+table+` ORDER BY rowid`)
	if err != nil {
		return nil, nil, classify(d.path, while, err)
	}
	defer rows.Close()
	out := map[string][]int64{}
	marked := map[string]bool{}
	for rows.Next() {
		var (
			rowid  int64
			name   sql.RawBytes
			isMark bool
		)
		if err := rows.Scan(&rowid, &name, &isMark); err != nil {
			return nil, nil, classify(d.path, while, err)
		}
		if name == nil {
			continue
		}
		if list, ok := out[string(name)]; ok {
			out[string(name)] = append(list, rowid)
		} else {
			out[string(name)] = []int64{rowid}
		}
		if isMark {
			marked[string(name)] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, classify(d.path, while, err)
	}
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

// intList renders ids for an IN (...) clause; they are integers, so no quoting is involved.
func intList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// chunks splits names into groups small enough for one statement's bound parameters.
func chunks(names []string, size int) [][]string {
	var out [][]string
	for len(names) > size {
		out = append(out, names[:size])
		names = names[size:]
	}
	if len(names) > 0 {
		out = append(out, names)
	}
	return out
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anySlice(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}
