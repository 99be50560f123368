package model

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// benchShape is the shape of ../shared/bench/s5k: 200 packages × 25 bundles with 3 CRDs each, and
// descriptions long enough to make about 134 MB of FBC JSON, the size of s5k's migrated FBC.
var benchShape = generate.Options{Packages: 200, BundlesPerPackage: 25, CRDsPerBundle: 3, SkipEvery: 3,
	DescriptionBytes: 16000, Seed: 5, Deprecations: true}

// writeCatalogDir writes a catalog in opm's layout, <package>/catalog.json, and returns its size.
func writeCatalogDir(tb testing.TB, c *fbc.Catalog, dir string) int64 {
	tb.Helper()
	var total int64
	for _, part := range fbc.SplitByPackage(c) {
		pkgDir := filepath.Join(dir, part.Package)
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(filepath.Join(pkgDir, "catalog.json"))
		if err != nil {
			tb.Fatal(err)
		}
		if err := fbc.Write(f, part.Catalog, fbc.JSON); err != nil {
			tb.Fatal(err)
		}
		st, _ := f.Stat()
		total += st.Size()
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return total
}

// BenchmarkValidate validates a generated catalog of the size of the s5k benchmark (or the FBC
// directory named by OLMCAT_BENCH_FBC, e.g. the migrated s5k) from disk, as olmcat validate does.
func BenchmarkValidate(b *testing.B) {
	dir := os.Getenv("OLMCAT_BENCH_FBC")
	if dir == "" {
		dir = b.TempDir()
		size := writeCatalogDir(b, generate.Catalog(benchShape), dir)
		b.SetBytes(size)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		v := NewValidator(Options{})
		issues, err := v.Finish(fbc.Walk(dir, v.Add))
		if err != nil {
			b.Fatal(err)
		}
		if errs := issues.Errors(); len(errs) > 0 {
			b.Fatalf("benchmark catalog is invalid:\n%v", errs[:min(len(errs), 5)])
		}
	}
}

// TestWriteBenchCatalog writes the benchmark catalog to $OLMCAT_WRITE_BENCH_FBC (skipped when
// unset), to measure the olmcat binary on it:
//
//	OLMCAT_WRITE_BENCH_FBC=/tmp/bench-fbc go test ./fbc/model -run TestWriteBenchCatalog
//	/usr/bin/time -v bin/olmcat validate /tmp/bench-fbc
func TestWriteBenchCatalog(t *testing.T) {
	dir := os.Getenv("OLMCAT_WRITE_BENCH_FBC")
	if dir == "" {
		t.Skip("set OLMCAT_WRITE_BENCH_FBC to a directory to write the benchmark catalog there")
	}
	size := writeCatalogDir(t, generate.Catalog(benchShape), dir)
	t.Logf("wrote %.1f MB to %s", float64(size)/1e6, dir)
}
