package compat

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheckCorpus compares the synthetic 200-bundle corpus index.db with its migrated FBC,
// both served in-process (2,062 calls per run).
func BenchmarkCheckCorpus(b *testing.B) {
	dir := filepath.Join(corpus(b), "sqlite", "synthetic-20x10")
	left := openCatalogTarget(b, filepath.Join(dir, "input.db"))
	right := openCatalogTarget(b, filepath.Join(dir, "migrate"))
	benchmarkCheck(b, left, right)
}

// BenchmarkCheckS5K runs the full plan (about 59,000 calls) on the s5k benchmark catalog: set
// OLMCAT_S5K_DB to its index.db and OLMCAT_S5K_FBC to its migrated FBC (see
// /work/shared/bench/README.md; olmcat migrate makes the FBC).
func BenchmarkCheckS5K(b *testing.B) {
	db, fbcDir := os.Getenv("OLMCAT_S5K_DB"), os.Getenv("OLMCAT_S5K_FBC")
	if db == "" || fbcDir == "" {
		b.Skip("set OLMCAT_S5K_DB and OLMCAT_S5K_FBC to the s5k index.db and its migrated FBC")
	}
	benchmarkCheck(b, openCatalogTarget(b, db), openCatalogTarget(b, fbcDir))
}

func benchmarkCheck(b *testing.B, left, right Target) {
	b.ReportAllocs()
	calls := 0
	for b.Loop() {
		r, err := Check(b.Context(), left, right, Options{})
		if err != nil || !r.Equal() {
			b.Fatalf("%v: %s", err, r.Summary())
		}
		calls = r.Total.Calls
	}
	b.ReportMetric(float64(calls), "calls/op")
}
