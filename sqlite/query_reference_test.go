package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// The lookups narrowed by queryEntryLinks must answer exactly as the plain SQL they replaced,
// which scans whole tables. Those statements are kept here, verbatim, as the reference; every
// key of every corpus index.db (and $OLMCAT_BENCH_DB when set) is asked of both.
const (
	refBundleThatReplaces = `
		SELECT b.name, b.bundle, b.bundlepath, b.version, b.skiprange
		FROM channel_entry AS old
		JOIN channel_entry AS new ON new.replaces = old.entry_id
		JOIN operatorbundle AS b ON b.name = new.operatorbundle_name
		WHERE old.operatorbundle_name = ? AND old.package_name = ? AND old.channel_name = ?
		LIMIT 1`
	refEntriesThatReplace = `
		SELECT DISTINCT new.package_name, new.channel_name, new.operatorbundle_name, ''
		FROM channel_entry AS new JOIN channel_entry AS old ON new.replaces = old.entry_id
		WHERE old.operatorbundle_name = ?`
	refEntriesThatProvide = `
		SELECT DISTINCT e.package_name, e.channel_name, e.operatorbundle_name, old.operatorbundle_name
		FROM channel_entry AS e
		JOIN properties AS p ON p.operatorbundle_name = e.operatorbundle_name
		LEFT JOIN channel_entry AS old ON old.entry_id = e.replaces
		WHERE p.type = ? AND p.value = ?`
	refLatestEntriesThatProvide = `
		SELECT e.package_name, e.channel_name, e.operatorbundle_name, old.operatorbundle_name, min(e.depth)
		FROM channel_entry AS e
		JOIN properties AS p ON p.operatorbundle_name = e.operatorbundle_name
		LEFT JOIN channel_entry AS old ON old.entry_id = e.replaces
		WHERE p.type = ? AND p.value = ?
		GROUP BY e.package_name, e.channel_name`
	refDefaultBundleThatProvides = `
		SELECT e.operatorbundle_name, e.package_name, e.channel_name, b.bundle, b.bundlepath, b.version, b.skiprange, min(e.depth)
		FROM channel_entry AS e
		JOIN operatorbundle AS b ON b.name = e.operatorbundle_name
		JOIN properties AS p ON p.operatorbundle_name = e.operatorbundle_name
		JOIN package AS pk ON pk.name = e.package_name
		WHERE p.type = ? AND p.value = ? AND pk.default_channel = e.channel_name
		GROUP BY e.package_name, e.channel_name`
)

func TestQuerierNarrowedLookupsMatchFullScans(t *testing.T) {
	dbs, _ := filepath.Glob(filepath.Join(queryConformanceDir, "*", "input.db"))
	if p := os.Getenv("OLMCAT_BENCH_DB"); p != "" {
		dbs = append(dbs, p)
	}
	if len(dbs) == 0 {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository)", queryConformanceDir)
	}
	for _, db := range dbs {
		t.Run(filepath.Base(filepath.Dir(db)), func(t *testing.T) {
			q, err := NewQuerier(db)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			compareNarrowedLookups(t, q)
		})
	}
}

func compareNarrowedLookups(t *testing.T, q *Querier) {
	ctx := context.Background()
	triples := refStrings(t, q, `SELECT DISTINCT operatorbundle_name, package_name, channel_name FROM channel_entry`, 3)
	triples = append(triples, []string{"no-such-bundle", "no-such-package", "no-such-channel"})
	for _, k := range triples {
		got, gotErr := q.GetBundleThatReplaces(ctx, k[0], k[1], k[2])
		want, wantErr := refBundle(ctx, q, refBundleThatReplaces, k[1], k[2], k[0], k[1], k[2])
		refCompare(t, fmt.Sprint("GetBundleThatReplaces", k), got, gotErr, want, wantErr)
	}
	for _, k := range triples {
		got, gotErr := q.GetChannelEntriesThatReplace(ctx, k[0])
		want := refEntries(t, q, refEntriesThatReplace, k[0])
		for _, e := range want {
			e.Replaces = k[0]
		}
		refCompare(t, "GetChannelEntriesThatReplace "+k[0], got, gotErr, want, nil)
	}
	values := refStrings(t, q, `SELECT DISTINCT CAST(value AS TEXT) FROM properties WHERE type = 'olm.gvk'`, 1)
	values = append(values, []string{`{"group":"no.such","kind":"Kind","version":"v1"}`})
	for _, v := range values {
		var g queryGVK
		if json.Unmarshal([]byte(v[0]), &g) != nil {
			continue
		}
		name := fmt.Sprint(g)
		value := queryProvidedValue(g.Group, g.Version, g.Kind)
		got, gotErr := q.GetChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind)
		refCompare(t, "GetChannelEntriesThatProvide "+name, got, gotErr, refEntries(t, q, refEntriesThatProvide, queryGVKType, value), nil)
		got, gotErr = q.GetLatestChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind)
		refCompare(t, "GetLatestChannelEntriesThatProvide "+name, got, gotErr, refEntries(t, q, refLatestEntriesThatProvide, queryGVKType, value), nil)
		gotBundle, gotErr := q.GetDefaultBundleThatProvides(ctx, g.Group, g.Version, g.Kind)
		wantBundle, wantErr := refBundle(ctx, q, refDefaultBundleThatProvides, "", "", queryGVKType, value)
		refCompare(t, "GetDefaultBundleThatProvides "+name, gotBundle, gotErr, wantBundle, wantErr)
	}
}

func refCompare[T any](t *testing.T, call string, got T, gotErr error, want T, wantErr error) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) && !(wantErr == nil && gotErr != nil && cmp.Equal(want, *new(T), protocmp.Transform())) {
		t.Fatalf("%s: error %v, reference error %v", call, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Fatalf("%s: differs from the full-scan query (-reference +narrowed):\n%s", call, diff)
	}
}

// refBundle runs a reference single-bundle query; an empty pkg means the query selects the
// package and channel after the bundle name (GetDefaultBundleThatProvides).
func refBundle(ctx context.Context, q *Querier, query, pkg, ch string, args ...any) (*api.Bundle, error) {
	var r queryBundleRow
	var blob sql.NullString
	var err error
	if pkg == "" {
		var p, c sql.NullString
		var depth sql.NullInt64
		err = q.db.QueryRowContext(ctx, query, args...).Scan(&r.name, &p, &c, &blob, &r.bundlePath, &r.version, &r.skipRange, &depth)
		if err == nil && !blob.Valid {
			err = sql.ErrNoRows
		}
		pkg, ch = p.String, c.String
	} else {
		err = q.db.QueryRowContext(ctx, query, args...).Scan(&r.name, &blob, &r.bundlePath, &r.version, &r.skipRange)
	}
	r.hasBlob = blob.Valid
	if err != nil {
		return nil, err
	}
	return q.fullBundle(ctx, r, pkg, ch)
}

func refEntries(t *testing.T, q *Querier, query string, args ...any) []*api.ChannelEntry {
	t.Helper()
	var out []*api.ChannelEntry
	rows, err := q.db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		var pkg, ch, bundle, replaces sql.NullString
		var depth sql.NullInt64
		dest := []any{&pkg, &ch, &bundle, &replaces, &depth}
		if err := rows.Scan(dest[:len(cols)]...); err != nil {
			t.Fatal(err)
		}
		out = append(out, &api.ChannelEntry{PackageName: pkg.String, ChannelName: ch.String, BundleName: bundle.String, Replaces: replaces.String})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func refStrings(t *testing.T, q *Querier, query string, n int) [][]string {
	t.Helper()
	rows, err := q.db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, n)
		dest := make([]any, n)
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, n)
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out
}
