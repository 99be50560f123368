package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// BenchmarkToSQLite converts a generated catalog the size of the s5k workload (200 packages × 25
// bundles, 3 CRDs each, 4 KB descriptions, skips) from a <package>/catalog.json tree into an
// index.db, reading it package by package as `olmcat migrate --to sqlite` does.
//
//	go test -run '^$' -bench BenchmarkToSQLite -benchtime 3x ./convert/
func BenchmarkToSQLite(b *testing.B) {
	cat := generate.Catalog(generate.Options{Packages: 200, BundlesPerPackage: 25, CRDsPerBundle: 3,
		SkipEvery: 3, DescriptionBytes: 4096, Seed: 5})
	root := filepath.Join(b.TempDir(), "catalog")
	var size int64
	for _, part := range fbc.SplitByPackage(cat) {
		dir := filepath.Join(root, part.Package)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, "catalog.json"))
		if err != nil {
			b.Fatal(err)
		}
		if err := fbc.Write(f, part.Catalog, fbc.JSON); err != nil {
			b.Fatal(err)
		}
		fi, _ := f.Stat()
		size += fi.Size()
		f.Close()
	}
	cat = nil
	b.SetBytes(size)
	out := filepath.Join(b.TempDir(), "index.db")
	for b.Loop() {
		r, err := ToSQLiteFromPath(context.Background(), root, out, ToSQLiteOptions{Force: true})
		if err != nil {
			b.Fatal(err)
		}
		if r.Written.Bundles != 5000 {
			b.Fatalf("%d bundles written", r.Written.Bundles)
		}
	}
}
