package sqlite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// benchDB is the index.db to benchmark: $OLMCAT_BENCH_DB (e.g. the gunzipped
// ../shared/bench/s5k/index.db.gz), else the largest corpus database.
func benchDB(b *testing.B) string {
	if p := os.Getenv("OLMCAT_BENCH_DB"); p != "" {
		return p
	}
	p := filepath.Join(queryConformanceDir, "synthetic-20x10", "input.db")
	if _, err := os.Stat(p); err != nil {
		b.Skip("set OLMCAT_BENCH_DB to an index.db")
	}
	return p
}

func BenchmarkQuerierOpen(b *testing.B) {
	db := benchDB(b)
	for b.Loop() {
		q, err := NewQuerier(db)
		if err != nil {
			b.Fatal(err)
		}
		q.Close()
	}
}

func BenchmarkQuerierListBundles(b *testing.B) {
	q, err := NewQuerier(benchDB(b))
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	rows := 0
	for b.Loop() {
		rows = 0
		if err := q.ListBundles(context.Background(), func(*api.Bundle) error { rows++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "bundles/op")
}

func BenchmarkQuerierGetBundle(b *testing.B) {
	q, err := NewQuerier(benchDB(b))
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	var rows []*api.Bundle
	if err := q.ListBundles(context.Background(), func(x *api.Bundle) error { rows = append(rows, x); return nil }); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		r := rows[i%len(rows)]
		i++
		if _, err := q.GetBundle(context.Background(), r.PackageName, r.ChannelName, r.CsvName); err != nil {
			b.Fatal(err)
		}
	}
}

// benchKeys reads the channel entries (bundle, package, channel) and olm.gvk values the lookup
// benchmarks cycle through.
func benchKeys(b *testing.B, q *Querier) (entries [][]string, gvks []queryGVK) {
	rows, err := q.db.Query(`SELECT DISTINCT operatorbundle_name, package_name, channel_name FROM channel_entry`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name, pkg, ch string
		if err := rows.Scan(&name, &pkg, &ch); err != nil {
			b.Fatal(err)
		}
		entries = append(entries, []string{name, pkg, ch})
	}
	rows.Close()
	rows, err = q.db.Query(`SELECT DISTINCT CAST(value AS TEXT) FROM properties WHERE type = 'olm.gvk'`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var v string
		var g queryGVK
		if rows.Scan(&v) == nil && json.Unmarshal([]byte(v), &g) == nil {
			gvks = append(gvks, g)
		}
	}
	rows.Close()
	if len(entries) == 0 || len(gvks) == 0 {
		b.Skip("no channel entries or olm.gvk properties")
	}
	return entries, gvks
}

func BenchmarkQuerierLookups(b *testing.B) {
	q, err := NewQuerier(benchDB(b))
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	entries, gvks := benchKeys(b, q)
	if _, err := q.rowIndex(ctx); err != nil {
		b.Fatal(err)
	}
	byEntry := map[string]func([]string){
		"GetBundleThatReplaces":        func(k []string) { q.GetBundleThatReplaces(ctx, k[0], k[1], k[2]) },
		"GetChannelEntriesThatReplace": func(k []string) { q.GetChannelEntriesThatReplace(ctx, k[0]) },
	}
	for name, call := range byEntry {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				call(entries[i%len(entries)])
				i++
			}
		})
	}
	byGVK := map[string]func(queryGVK){
		"GetChannelEntriesThatProvide":       func(g queryGVK) { q.GetChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind) },
		"GetLatestChannelEntriesThatProvide": func(g queryGVK) { q.GetLatestChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind) },
		"GetDefaultBundleThatProvides":       func(g queryGVK) { q.GetDefaultBundleThatProvides(ctx, g.Group, g.Version, g.Kind) },
	}
	for name, call := range byGVK {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				call(gvks[i%len(gvks)])
				i++
			}
		})
	}
}

// BenchmarkQuerierFirstLookup is the cost of the first lookup after open, which builds the row
// index.
func BenchmarkQuerierFirstLookup(b *testing.B) {
	db := benchDB(b)
	for b.Loop() {
		q, err := NewQuerier(db)
		if err != nil {
			b.Fatal(err)
		}
		q.GetChannelEntriesThatReplace(context.Background(), "no-such-bundle")
		q.Close()
	}
}
