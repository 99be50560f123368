package opmcache

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWrite writes opm's cache for fixtures/catalog, or for the catalog directory of
// OLMCAT_OPMCACHE_BENCH_CATALOG (e.g. s5k migrated: `olmcat migrate index.db DIR`).
func BenchmarkWrite(b *testing.B) {
	configs := "../../fixtures/catalog"
	if c := os.Getenv("OLMCAT_OPMCACHE_BENCH_CATALOG"); c != "" {
		configs = c
	}
	if _, err := os.Stat(configs); err != nil {
		b.Skipf("no catalog: %v", err)
	}
	parent := b.TempDir()
	for b.Loop() {
		out := filepath.Join(parent, "cache")
		if err := Write(context.Background(), configs, out, Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(out)
		b.StartTimer()
	}
}
