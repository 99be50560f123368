package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/internal/spool"
	"google.golang.org/protobuf/proto"
)

// queryListEntriesSQL yields every channel entry with the name of the entry it points at, ordered
// so that the entries of one (bundle, package, channel) are adjacent. on_chain tells whether the
// entry lies on a replaces chain that starts at an entry of the least depth in the whole table:
// opm reports those edges as replaces and every other edge as a skip.
const queryListEntriesSQL = `
WITH RECURSIVE
	chain(entry_id) AS (
		SELECT entry_id FROM channel_entry WHERE depth = (SELECT min(depth) FROM channel_entry)
		UNION
		SELECT e.replaces FROM channel_entry AS e JOIN chain ON e.entry_id = chain.entry_id
		WHERE e.replaces IN (SELECT entry_id FROM channel_entry)
	)
SELECT e.operatorbundle_name, e.package_name, e.channel_name,
	e.entry_id IN (SELECT entry_id FROM chain), t.operatorbundle_name
FROM channel_entry AS e
LEFT JOIN channel_entry AS t ON t.entry_id = e.replaces
WHERE e.operatorbundle_name IS NOT NULL
ORDER BY e.operatorbundle_name, e.package_name, e.channel_name, e.entry_id`

// queryListBundlesSQL reads each bundle's columns once (reaching them means walking past the
// manifests stored before them), in name order; the manifests themselves only for bundles without
// an image, since opm registry serve omits them otherwise.
const queryListBundlesSQL = `
SELECT name, bundlepath, version, skiprange, CASE WHEN bundlepath = '' THEN bundle END
FROM operatorbundle WHERE name IS NOT NULL ORDER BY name`

// queryListRow is one (bundle, package, channel) group of channel entries.
type queryListRow struct {
	bundle, pkg string
	channel     sql.NullString
	replaces    string
	skips       []string
}

// queryListedBundle is what ListBundles derives once per bundle name and reuses in every channel.
type queryListedBundle struct {
	name                           string
	bundlePath, version, skipRange sql.NullString
	blob                           sql.NullString
	objects                        []string
	csvJSON                        string
	provided, required             []queryGVK
	properties, dependencies       [][2]string
}

// ListBundles streams one bundle per (bundle, package, channel), as opm registry serve does with
// manifests omitted: replaces comes from the replaces chain of least depth (the greatest name when
// there are several), every other edge is a skip, properties and dependencies are every row of the
// bundle's name, deduplicated, and csvJson/object are filled only for bundles without an image.
// Groups with a NULL version, image or channel, and names with no operatorbundle row, are left out.
//
// The stream is read from the database once, by the first call, and kept encoded (a spool):
// the database does not change while it is served, and a client that reads slowly then holds no
// database connection and no lock, only its own position in the kept stream.
func (q *Querier) ListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	return q.ListBundlesRaw(ctx, func(m api.PreEncoded) error {
		b := &api.Bundle{}
		if err := proto.Unmarshal(m.Bytes(), b); err != nil {
			return err
		}
		return send(b)
	})
}

// ListBundlesRaw is ListBundles in wire form, straight from the kept stream.
func (q *Querier) ListBundlesRaw(ctx context.Context, send func(api.PreEncoded) error) error {
	sp, err := q.listStream(ctx)
	if err != nil {
		return err
	}
	for i := range sp.Len() {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := sp.Get(i)
		if err != nil {
			return q.wrap(err)
		}
		if err := send(api.PreEncoded{m}); err != nil {
			return err
		}
	}
	return nil
}

// listSpoolMemory is how much of the ListBundles stream is kept in memory; the rest of a large
// stream (tens of thousands of bundles) is kept in a temporary file.
var listSpoolMemory = 8 << 20

// listLoad is one reading of the ListBundles stream from the database.
type listLoad struct {
	done   chan struct{} // closed once sp or err is set
	cancel context.CancelFunc
	sp     *spool.Spool
	err    error
}

// failed tells whether the reading is over and failed; call with q.listMu held.
func (l *listLoad) failed() bool {
	select {
	case <-l.done:
		return l.err != nil
	default:
		return false
	}
}

// listReadStarted, when set (by tests), runs as a reading of the ListBundles stream starts.
var listReadStarted func()

// listStream returns the encoded ListBundles stream, reading it from the database on first use.
// Callers that arrive while it is being read wait for it, each until its own context is done: a
// client that goes away stops waiting at once. A failed read is not kept: the next call reads
// again.
//
// The reading runs apart from the caller that started it and goes on when that caller's client
// goes away: the stream is shared and kept, other callers may be waiting for it, and the next
// caller would only have to start it over. Only Close stops it.
func (q *Querier) listStream(ctx context.Context) (*spool.Spool, error) {
	q.listMu.Lock()
	if q.listClosed {
		q.listMu.Unlock()
		return nil, fmt.Errorf("index %s: the server has closed it", q.input)
	}
	l := q.list
	if l == nil || l.failed() {
		readCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		l = &listLoad{done: make(chan struct{}), cancel: cancel}
		q.list = l
		go func() {
			defer cancel()
			defer close(l.done)
			l.sp, l.err = q.readListStream(readCtx)
		}()
	}
	q.listMu.Unlock()
	select {
	case <-l.done:
		return l.sp, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readListStream reads the ListBundles stream from the database into a new spool.
func (q *Querier) readListStream(ctx context.Context) (*spool.Spool, error) {
	if listReadStarted != nil {
		listReadStarted()
	}
	sp := spool.New(listSpoolMemory)
	err := q.readListBundles(ctx, func(b *api.Bundle) error {
		data, err := proto.MarshalOptions{Deterministic: true}.Marshal(b)
		if err != nil {
			return err
		}
		return sp.Add(data)
	})
	if err == nil {
		err = sp.Finish()
	}
	if err != nil {
		sp.Close()
		return nil, err
	}
	return sp, nil
}

// readListBundles reads the ListBundles stream from the database.
func (q *Querier) readListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	// One connection runs all of this call's statements, stepping them side by side: taking
	// several from the pool at once would deadlock when many clients list at the same time.
	conn, err := q.listDB.Conn(ctx)
	if err != nil {
		return q.wrap(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, queryListEntriesSQL)
	if err != nil {
		return q.wrap(err)
	}
	defer rows.Close()
	m, err := q.newQueryListMerger(ctx, conn)
	if err != nil {
		return err
	}
	defer m.close()

	var cur *queryListRow
	flush := func() error {
		if cur == nil || !cur.channel.Valid {
			return nil
		}
		lb, err := m.bundle(cur.bundle)
		if err != nil {
			return q.wrap(err)
		}
		if lb == nil || !lb.version.Valid || !lb.bundlePath.Valid {
			return nil
		}
		return send(lb.message(cur))
	}
	for rows.Next() {
		var name, pkg, ch, target sql.NullString
		var onChain bool
		if err := rows.Scan(&name, &pkg, &ch, &onChain, &target); err != nil {
			return q.wrap(err)
		}
		if cur == nil || cur.bundle != name.String || cur.pkg != pkg.String || cur.channel != ch {
			if err := flush(); err != nil {
				return err
			}
			cur = &queryListRow{bundle: name.String, pkg: pkg.String, channel: ch}
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

// message builds a fresh answer (callers may change it) from the bundle and one channel's edges.
func (lb *queryListedBundle) message(r *queryListRow) *api.Bundle {
	out := &api.Bundle{
		CsvName: lb.name, PackageName: r.pkg, ChannelName: r.channel.String,
		BundlePath: lb.bundlePath.String, Version: lb.version.String, SkipRange: lb.skipRange.String,
		Replaces: r.replaces, Skips: r.skips, CsvJson: lb.csvJSON,
	}
	out.Object = append(out.Object, lb.objects...)
	for _, g := range lb.provided {
		out.ProvidedApis = append(out.ProvidedApis, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
	}
	for _, g := range lb.required {
		out.RequiredApis = append(out.RequiredApis, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
	}
	for _, p := range lb.properties {
		out.Properties = append(out.Properties, &api.Property{Type: p[0], Value: p[1]})
	}
	for _, d := range lb.dependencies {
		out.Dependencies = append(out.Dependencies, &api.Dependency{Type: d[0], Value: d[1]})
	}
	return out
}

// queryListMerger walks operatorbundle, properties and dependencies in bundle-name order beside
// the entries, so that ListBundles holds one bundle at a time whatever the index's size.
type queryListMerger struct {
	bundles     *sql.Rows
	next        *queryListedBundle // read ahead, not yet asked for
	last        *queryListedBundle // a bundle in several channels is asked for once per channel
	props, deps *queryTypedCursor
}

func (q *Querier) newQueryListMerger(ctx context.Context, conn *sql.Conn) (*queryListMerger, error) {
	m := &queryListMerger{}
	var err error
	if m.bundles, err = conn.QueryContext(ctx, queryListBundlesSQL); err != nil {
		return nil, q.wrap(err)
	}
	if m.props, err = q.newQueryTypedCursor(ctx, conn, "properties"); err != nil {
		m.bundles.Close()
		return nil, err
	}
	if m.deps, err = q.newQueryTypedCursor(ctx, conn, "dependencies"); err != nil {
		m.bundles.Close()
		m.props.close()
		return nil, err
	}
	return m, nil
}

func (m *queryListMerger) close() {
	m.bundles.Close()
	m.props.close()
	m.deps.close()
}

// bundle returns the operatorbundle row of name with everything derived from it, or nil when
// there is none; names must be asked in ascending order.
func (m *queryListMerger) bundle(name string) (*queryListedBundle, error) {
	if m.last != nil && m.last.name == name {
		return m.last, nil
	}
	for {
		if m.next == nil {
			if !m.bundles.Next() {
				return nil, m.bundles.Err()
			}
			lb := &queryListedBundle{}
			if err := m.bundles.Scan(&lb.name, &lb.bundlePath, &lb.version, &lb.skipRange, &lb.blob); err != nil {
				return nil, err
			}
			m.next = lb
		}
		if m.next.name > name {
			return nil, nil
		}
		lb := m.next
		m.next = nil
		if lb.name < name {
			continue
		}
		if err := m.derive(lb); err != nil {
			return nil, err
		}
		m.last = lb
		return lb, nil
	}
}

func (m *queryListMerger) derive(lb *queryListedBundle) error {
	if lb.blob.Valid && lb.blob.String != "" {
		objs, csv, err := querySplitBundleBlob(lb.blob.String)
		if err != nil {
			return err
		}
		lb.objects, lb.csvJSON = objs, csv
	}
	lb.blob = sql.NullString{}
	props, err := m.props.rowsOf(lb.name)
	if err != nil {
		return err
	}
	deps, err := m.deps.rowsOf(lb.name)
	if err != nil {
		return err
	}
	lb.provided, lb.required = queryLegacyAPIs(props), queryLegacyAPIs(deps)
	lb.properties, lb.dependencies = queryDedupe(props), queryDedupe(deps)
	return nil
}

// queryLegacyAPIs decodes the olm.gvk rows, duplicates kept (opm builds the APIs before it
// deduplicates), undecodable values skipped.
func queryLegacyAPIs(rows [][2]string) []queryGVK {
	var out []queryGVK
	for _, r := range rows {
		if r[0] != queryGVKType {
			continue
		}
		var g queryGVK
		if json.Unmarshal([]byte(r[1]), &g) == nil {
			out = append(out, g)
		}
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

// queryTypedCursor walks all rows of properties or dependencies ordered by bundle name.
type queryTypedCursor struct {
	rows    *sql.Rows
	pending *[3]string // read but not yet consumed: name, type, value
	done    bool
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

// rowsOf returns the (type, value) rows of one bundle; names must be asked in ascending order,
// each once.
func (c *queryTypedCursor) rowsOf(name string) ([][2]string, error) {
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
