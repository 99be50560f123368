package fbcbackend

import (
	"context"
	"os"
	"testing"

	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// benchCatalog is $OLMCAT_BENCH_FBC (e.g. what `olmcat migrate` makes of ../shared/bench/s5k),
// else a generated catalog of 20 packages x 25 bundles.
func benchCatalog(b *testing.B) string {
	if p := os.Getenv("OLMCAT_BENCH_FBC"); p != "" {
		return p
	}
	return writeCatalog(b, generate.Options{Packages: 20, BundlesPerPackage: 25, CRDsPerBundle: 3, SkipEvery: 3, DescriptionBytes: 4096, Seed: 7})
}

// BenchmarkOpenNoCache is start-up without a cache: read, validate, convert, write the store.
func BenchmarkOpenNoCache(b *testing.B) {
	root := benchCatalog(b)
	for b.Loop() {
		be, err := Open(context.Background(), Dir(root), Options{})
		if err != nil {
			b.Fatal(err)
		}
		be.Close()
	}
}

// BenchmarkOpenWithCache is start-up from a cache built beforehand (--cache-only).
func BenchmarkOpenWithCache(b *testing.B) {
	root, cache := benchCatalog(b), b.TempDir()
	if err := BuildCache(context.Background(), Dir(root), cache, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		be, err := Open(context.Background(), Dir(root), Options{CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		be.Close()
	}
}

func BenchmarkListBundles(b *testing.B) {
	be, err := Open(context.Background(), Dir(benchCatalog(b)), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	rows := 0
	for b.Loop() {
		rows = 0
		if err := be.ListBundles(context.Background(), func(*api.Bundle) error { rows++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "bundles/op")
}

func BenchmarkGetBundle(b *testing.B) {
	be, err := Open(context.Background(), Dir(benchCatalog(b)), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	keys := be.list
	i := 0
	for b.Loop() {
		k := keys[i%len(keys)]
		i++
		if _, err := be.GetBundle(context.Background(), k.pkg.Name, k.ch.Name, k.entry.Name); err != nil {
			b.Fatal(err)
		}
	}
}
