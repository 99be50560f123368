package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// GetBundle answers from the first channel entry of (package, channel, bundle) that has an
// operatorbundle row; the package and channel of the answer are the request's.
func (q *Querier) GetBundle(ctx context.Context, pkgName, channelName, csvName string) (*api.Bundle, error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, err
	}
	var r queryBundleRow
	err = q.queryRow(ctx, `
		SELECT b.name, b.bundle IS NOT NULL, b.bundlepath, b.version, b.skiprange
		FROM channel_entry AS e JOIN operatorbundle AS b ON b.name = e.operatorbundle_name
		WHERE e.rowid IN (SELECT value FROM json_each(?))
		ORDER BY e.rowid LIMIT 1`, rowidList(ix.entries[[3]string{pkgName, channelName, csvName}])).Scan(&r.name, &r.hasBlob, &r.bundlePath, &r.version, &r.skipRange)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("no entry found for %s %s %s", pkgName, channelName, csvName)
	}
	if err != nil {
		return nil, q.wrap(err)
	}
	return q.fullBundle(ctx, r, pkgName, channelName)
}

// GetBundleForChannel returns only the channel head's name and its csv column, which keeps the
// trailing newline it was stored with.
func (q *Querier) GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*api.Bundle, error) {
	var name, csv sql.NullString
	err := q.queryRow(ctx, `
		SELECT b.name, b.csv
		FROM channel AS c JOIN operatorbundle AS b ON b.name = c.head_operatorbundle_name
		WHERE c.package_name = ? AND c.name = ?
		LIMIT 1`, pkgName, channelName).Scan(&name, &csv)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("no entry found for %s %s", pkgName, channelName)
	}
	if err != nil {
		return nil, q.wrap(err)
	}
	return &api.Bundle{CsvName: name.String, CsvJson: csv.String}, nil
}

// GetBundleThatReplaces returns the first bundle of the channel whose entry replaces an entry named
// csvName; the synthetic entries the loader writes for skips count as replacing.
func (q *Querier) GetBundleThatReplaces(ctx context.Context, csvName, pkgName, channelName string) (*api.Bundle, error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, err
	}
	// Without an index SQLite scans new in rowid order: the first match is the least rowid.
	replacers := ix.links.replacersOf(ix.entries[[3]string{pkgName, channelName, csvName}])
	var r queryBundleRow
	err = q.queryRow(ctx, `
		SELECT b.name, b.bundle IS NOT NULL, b.bundlepath, b.version, b.skiprange
		FROM channel_entry AS new
		JOIN channel_entry AS old ON new.replaces = old.entry_id
		JOIN operatorbundle AS b ON b.name = new.operatorbundle_name
		WHERE new.rowid IN (SELECT value FROM json_each(?))
		AND old.operatorbundle_name = ? AND old.package_name = ? AND old.channel_name = ?
		ORDER BY new.rowid LIMIT 1`, rowidList(replacers), csvName, pkgName, channelName).Scan(&r.name, &r.hasBlob, &r.bundlePath, &r.version, &r.skipRange)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("no entry found for %s %s", pkgName, channelName)
	}
	if err != nil {
		return nil, q.wrap(err)
	}
	return q.fullBundle(ctx, r, pkgName, channelName)
}

// GetChannelEntriesThatReplace lists the distinct entries whose replaces points at an entry named
// csvName; every answer's replaces is the queried name, also for skip edges.
func (q *Querier) GetChannelEntriesThatReplace(ctx context.Context, csvName string) ([]*api.ChannelEntry, error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, err
	}
	// DISTINCT in first-seen order of a rowid-order scan of new, done here.
	rows, err := q.query(ctx, `
		SELECT new.package_name, new.channel_name, new.operatorbundle_name
		FROM channel_entry AS new JOIN channel_entry AS old ON new.replaces = old.entry_id
		WHERE new.rowid IN (SELECT value FROM json_each(?)) AND old.operatorbundle_name = ?
		ORDER BY new.rowid`, rowidList(ix.links.replacersOf(ix.links.byBundle[csvName])), csvName)
	if err != nil {
		return nil, q.wrap(err)
	}
	defer rows.Close()
	var out []*api.ChannelEntry
	seen := map[[3]sql.NullString]bool{}
	for rows.Next() {
		var pkg, ch, bundle sql.NullString
		if err := rows.Scan(&pkg, &ch, &bundle); err != nil {
			return nil, q.wrap(err)
		}
		k := [3]sql.NullString{pkg, ch, bundle}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, &api.ChannelEntry{PackageName: pkg.String, ChannelName: ch.String, BundleName: bundle.String, Replaces: csvName})
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", csvName)
	}
	return out, nil
}

// queryProvidedValue is the exact olm.gvk property text the provider queries compare with: compact,
// keys in Go map order (group, kind, version), HTML-escaped. Values stored in any other form, or
// stored as BLOB, never match (opm's behaviour).
func queryProvidedValue(group, version, kind string) string {
	b, _ := json.Marshal(map[string]string{"group": group, "version": version, "kind": kind})
	return string(b)
}

// The rows the provider queries join, narrowed to candidate rowids; the caller adds the order
// in which SQLite's full scan met them.
const queryProviderJoin = `
	FROM properties AS p
	JOIN channel_entry AS e ON p.operatorbundle_name = e.operatorbundle_name
	LEFT JOIN channel_entry AS old ON old.entry_id = e.replaces
	WHERE p.rowid IN (SELECT value FROM json_each(?)) AND e.rowid IN (SELECT value FROM json_each(?))
	AND p.type = ? AND p.value = ?`

// GetChannelEntriesThatProvide lists every channel entry (synthetic skip rows included) of
// bundles that provide the API, with the name of the entry each one replaces.
func (q *Querier) GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	// DISTINCT, done here, in first-seen order of SQLite's plan for the unindexed file: properties
	// in rowid order, each joined through an automatic covering index on entries, whose order is
	// its key: the bundle name, then the other columns used in table order, then rowid.
	return q.providerEntries(ctx, `
		SELECT e.package_name, e.channel_name, e.operatorbundle_name, old.operatorbundle_name`+queryProviderJoin+`
		ORDER BY p.rowid, e.channel_name, e.package_name, e.replaces, e.rowid`, true, group, version, kind)
}

// GetLatestChannelEntriesThatProvide keeps, per channel, the providing entry of least depth: the
// newest providing bundle of the chain, which need not be the head.
func (q *Querier) GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	// SQLite takes the bare columns of an aggregate query with a single min() from the first row
	// that holds the minimum, so the rows are fed in the order the unindexed plan met them (see
	// GetChannelEntriesThatProvide; depth is one more column of the automatic index here).
	return q.providerEntries(ctx, `
		SELECT package_name, channel_name, bundle, replaces, min(depth) FROM (
			SELECT e.package_name AS package_name, e.channel_name AS channel_name,
				e.operatorbundle_name AS bundle, old.operatorbundle_name AS replaces, e.depth AS depth`+queryProviderJoin+`
			ORDER BY p.rowid, e.channel_name, e.package_name, e.replaces, e.depth, e.rowid)
		GROUP BY package_name, channel_name`, false, group, version, kind)
}

func (q *Querier) providerEntries(ctx context.Context, query string, distinct bool, group, version, kind string) ([]*api.ChannelEntry, error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, err
	}
	value := queryProvidedValue(group, version, kind)
	props, entries := ix.links.providers(value)
	rows, err := q.query(ctx, query, rowidList(props), rowidList(entries), queryGVKType, value)
	if err != nil {
		return nil, q.wrap(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, q.wrap(err)
	}
	var out []*api.ChannelEntry
	seen := map[[4]sql.NullString]bool{}
	for rows.Next() {
		var pkg, ch, bundle, replaces sql.NullString
		var depth sql.NullInt64
		dest := []any{&pkg, &ch, &bundle, &replaces}
		if len(cols) == 5 {
			dest = append(dest, &depth)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, q.wrap(err)
		}
		if distinct {
			k := [4]sql.NullString{pkg, ch, bundle, replaces}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, &api.ChannelEntry{PackageName: pkg.String, ChannelName: ch.String, BundleName: bundle.String, Replaces: replaces.String})
	}
	if err := rows.Err(); err != nil {
		return nil, q.wrap(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide %s %s %s", group, version, kind)
	}
	return out, nil
}

// GetDefaultBundleThatProvides takes, among the providing entries of each package's default
// channel, the one of least depth per channel, and answers from the first such group only. A
// NULL manifest blob in that row fails the call even if another package provides the API.
func (q *Querier) GetDefaultBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, err
	}
	value := queryProvidedValue(group, version, kind)
	props, entries := ix.links.providers(value)
	var r queryBundleRow
	var pkg, ch sql.NullString
	var depth sql.NullInt64
	var hasBlob sql.NullBool
	// Rows fed to the aggregate in the order the unindexed plan met them: entries in rowid order,
	// each joined through an automatic index on properties (type, value, bundle name, rowid).
	err = q.queryRow(ctx, `
		SELECT name, package_name, channel_name, bundle, bundlepath, version, skiprange, min(depth) FROM (
			SELECT e.operatorbundle_name AS name, e.package_name AS package_name, e.channel_name AS channel_name,
				b.bundle IS NOT NULL AS bundle, b.bundlepath AS bundlepath, b.version AS version, b.skiprange AS skiprange, e.depth AS depth
			FROM channel_entry AS e
			JOIN operatorbundle AS b ON b.name = e.operatorbundle_name
			JOIN properties AS p ON p.operatorbundle_name = e.operatorbundle_name
			JOIN package AS pk ON pk.name = e.package_name
			WHERE e.rowid IN (SELECT value FROM json_each(?)) AND p.rowid IN (SELECT value FROM json_each(?))
			AND p.type = ? AND p.value = ? AND pk.default_channel = e.channel_name
			ORDER BY e.rowid, p.rowid)
		GROUP BY package_name, channel_name`, rowidList(entries), rowidList(props), queryGVKType, value).
		Scan(&r.name, &pkg, &ch, &hasBlob, &r.bundlePath, &r.version, &r.skipRange, &depth)
	r.hasBlob = hasBlob.Valid && hasBlob.Bool
	if err == sql.ErrNoRows || (err == nil && !r.hasBlob) {
		return nil, fmt.Errorf("no entry found that provides %s %s %s", group, version, kind)
	}
	if err != nil {
		return nil, q.wrap(err)
	}
	return q.fullBundle(ctx, r, pkg.String, ch.String)
}
