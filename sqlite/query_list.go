package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// queryListEntriesSQL yields every channel entry with the bundle it belongs to and the name of the
// entry it points at, ordered so that the entries of one (bundle, package, channel) are adjacent.
// on_chain tells whether the entry lies on a replaces chain that starts at an entry of the least
// depth in the whole table: opm reports those edges as replaces and every other edge as a skip.
const queryListEntriesSQL = `
WITH RECURSIVE
	chain(entry_id) AS (
		SELECT entry_id FROM channel_entry WHERE depth = (SELECT min(depth) FROM channel_entry)
		UNION
		SELECT e.replaces FROM channel_entry AS e JOIN chain ON e.entry_id = chain.entry_id
		WHERE e.replaces IN (SELECT entry_id FROM channel_entry)
	)
SELECT e.operatorbundle_name, e.package_name, e.channel_name,
	e.entry_id IN (SELECT entry_id FROM chain), t.operatorbundle_name,
	b.name IS NOT NULL, b.bundlepath, b.version, b.skiprange
FROM channel_entry AS e
LEFT JOIN channel_entry AS t ON t.entry_id = e.replaces
LEFT JOIN operatorbundle AS b ON b.name = e.operatorbundle_name
WHERE e.operatorbundle_name IS NOT NULL
ORDER BY e.operatorbundle_name, e.package_name, e.channel_name, e.entry_id`

// queryListRow is one (bundle, package, channel) group of channel entries.
type queryListRow struct {
	bundle, pkg                    string
	channel                        sql.NullString
	hasBundle                      bool
	bundlePath, version, skipRange sql.NullString
	replaces                       string
	skips                          []string
}

// ListBundles streams one bundle per (bundle, package, channel), as opm registry serve does with
// manifests omitted: replaces comes from the replaces chain of least depth (the greatest name when
// there are several), every other edge is a skip, properties and dependencies are every row of the
// bundle's name, deduplicated, and csvJson/object are filled only for bundles without an image.
// Groups with a NULL version, image or channel, and names with no operatorbundle row, are left out.
func (q *Querier) ListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	// One connection runs all of this call's statements, stepping them side by side: taking
	// several from the pool at once would deadlock when many clients list at the same time.
	conn, err := q.db.Conn(ctx)
	if err != nil {
		return q.wrap(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, queryListEntriesSQL)
	if err != nil {
		return q.wrap(err)
	}
	defer rows.Close()
	props, err := q.newQueryTypedCursor(ctx, conn, "properties")
	if err != nil {
		return err
	}
	defer props.close()
	deps, err := q.newQueryTypedCursor(ctx, conn, "dependencies")
	if err != nil {
		return err
	}
	defer deps.close()

	var cur *queryListRow
	flush := func() error {
		if cur == nil || !cur.hasBundle || !cur.version.Valid || !cur.bundlePath.Valid || !cur.channel.Valid {
			return nil
		}
		b, err := q.listBundle(ctx, conn, cur, props, deps)
		if err != nil {
			return err
		}
		return send(b)
	}
	for rows.Next() {
		var name, pkg, ch, target sql.NullString
		var onChain, hasBundle bool
		var path, version, skipRange sql.NullString
		if err := rows.Scan(&name, &pkg, &ch, &onChain, &target, &hasBundle, &path, &version, &skipRange); err != nil {
			return q.wrap(err)
		}
		if cur == nil || cur.bundle != name.String || cur.pkg != pkg.String || cur.channel != ch {
			if err := flush(); err != nil {
				return err
			}
			cur = &queryListRow{bundle: name.String, pkg: pkg.String, channel: ch, hasBundle: hasBundle,
				bundlePath: path, version: version, skipRange: skipRange}
		}
		switch {
		case !target.Valid:
		case onChain:
			cur.replaces = max(cur.replaces, target.String)
		default:
			cur.skips = append(cur.skips, target.String)
		}
	}
	if err := rows.Err(); err != nil {
		return q.wrap(err)
	}
	return flush()
}

func (q *Querier) listBundle(ctx context.Context, conn *sql.Conn, r *queryListRow, props, deps *queryTypedCursor) (*api.Bundle, error) {
	out := &api.Bundle{
		CsvName: r.bundle, PackageName: r.pkg, ChannelName: r.channel.String,
		BundlePath: r.bundlePath.String, Version: r.version.String, SkipRange: r.skipRange.String,
		Replaces: r.replaces, Skips: r.skips,
	}
	if r.bundlePath.String == "" {
		var blob sql.NullString
		if err := conn.QueryRowContext(ctx, `SELECT bundle FROM operatorbundle WHERE name = ?`, r.bundle).Scan(&blob); err != nil {
			return nil, q.wrap(err)
		}
		if blob.Valid && blob.String != "" {
			objs, csv, err := querySplitBundleBlob(blob.String)
			if err != nil {
				return nil, err
			}
			out.Object, out.CsvJson = objs, csv
		}
	}
	propRows, err := props.rowsOf(r.bundle)
	if err != nil {
		return nil, q.wrap(err)
	}
	depRows, err := deps.rowsOf(r.bundle)
	if err != nil {
		return nil, q.wrap(err)
	}
	out.ProvidedApis = queryLegacyAPIs(propRows)
	out.RequiredApis = queryLegacyAPIs(depRows)
	for _, p := range queryDedupe(propRows) {
		out.Properties = append(out.Properties, &api.Property{Type: p[0], Value: p[1]})
	}
	for _, d := range queryDedupe(depRows) {
		out.Dependencies = append(out.Dependencies, &api.Dependency{Type: d[0], Value: d[1]})
	}
	return out, nil
}

// queryLegacyAPIs builds provided or required APIs from olm.gvk rows, duplicates kept, plural empty.
func queryLegacyAPIs(rows [][2]string) []*api.GroupVersionKind {
	var out []*api.GroupVersionKind
	for _, r := range rows {
		if r[0] != queryGVKType {
			continue
		}
		var g queryGVK
		if json.Unmarshal([]byte(r[1]), &g) != nil {
			continue
		}
		out = append(out, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
	}
	return out
}

func queryDedupe(rows [][2]string) [][2]string {
	seen := make(map[[2]string]bool, len(rows))
	out := rows[:0:0]
	for _, r := range rows {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// queryTypedCursor walks all rows of properties or dependencies ordered by bundle name, so that
// ListBundles can merge them with its own name-ordered rows without holding the tables in memory.
type queryTypedCursor struct {
	rows     *sql.Rows
	pending  *[3]string // read but not yet consumed: name, type, value
	done     bool
	lastName string // a bundle in several channels is asked for once per channel
	last     [][2]string
}

func (q *Querier) newQueryTypedCursor(ctx context.Context, conn *sql.Conn, table string) (*queryTypedCursor, error) {
	rows, err := conn.QueryContext(ctx, `SELECT operatorbundle_name, type, CAST(value AS TEXT) FROM `+table+`
		WHERE operatorbundle_name IS NOT NULL ORDER BY operatorbundle_name, rowid`)
	if err != nil {
		return nil, q.wrap(err)
	}
	return &queryTypedCursor{rows: rows}, nil
}

func (c *queryTypedCursor) close() { c.rows.Close() }

// rowsOf returns the (type, value) rows of one bundle; names must be asked in ascending order.
func (c *queryTypedCursor) rowsOf(name string) ([][2]string, error) {
	if c.last != nil && name == c.lastName {
		return c.last, nil
	}
	out, err := c.advance(name)
	c.lastName, c.last = name, out
	if out == nil {
		c.last = [][2]string{}
	}
	return out, err
}

func (c *queryTypedCursor) advance(name string) ([][2]string, error) {
	var out [][2]string
	for {
		if c.pending == nil {
			if c.done || !c.rows.Next() {
				c.done = true
				return out, c.rows.Err()
			}
			var n, t, v sql.NullString
			if err := c.rows.Scan(&n, &t, &v); err != nil {
				return nil, err
			}
			c.pending = &[3]string{n.String, t.String, v.String}
		}
		switch {
		case c.pending[0] < name:
			c.pending = nil
		case c.pending[0] == name:
			out = append(out, [2]string{c.pending[1], c.pending[2]})
			c.pending = nil
		default:
			return out, nil
		}
	}
}
