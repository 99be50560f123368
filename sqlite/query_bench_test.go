package sqlite

import (
	"context"
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
