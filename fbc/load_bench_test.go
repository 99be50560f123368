package fbc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks read the catalog in $OLMCAT_BENCH_FBC when set (for example the migrated s5k bench
// catalog), otherwise they generate one of about the s5k size (200 packages x 31 bundles, ~134 MB of
// JSON in opm's layout) from the conformance bundles. To keep a generated catalog for repeated runs:
//
//	OLMCAT_WRITE_BENCH_FBC=/tmp/bigfbc go test ./fbc -run TestWriteBenchCatalog
func benchCatalog(b *testing.B) (string, int64) {
	b.Helper()
	if dir := os.Getenv("OLMCAT_BENCH_FBC"); dir != "" {
		return dir, treeSize(b, dir)
	}
	dir := b.TempDir()
	writeLargeCatalog(b, dir, 200, 31)
	return dir, treeSize(b, dir)
}

func TestWriteBenchCatalog(t *testing.T) {
	dir := os.Getenv("OLMCAT_WRITE_BENCH_FBC")
	if dir == "" {
		t.Skip("set OLMCAT_WRITE_BENCH_FBC=<new dir> to write the generated benchmark catalog there")
	}
	writeLargeCatalog(t, dir, 200, 31)
	t.Logf("wrote %d bytes to %s", treeSize(t, dir), dir)
}

func treeSize(tb testing.TB, dir string) int64 {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total
}

// writeLargeCatalog writes pkgs packages of perPkg bundles each as <pkg>/catalog.json, the bundles
// being the conformance migrate outputs' bundles under new names, one channel per package.
func writeLargeCatalog(tb testing.TB, dir string, pkgs, perPkg int) {
	tb.Helper()
	sources, _ := filepath.Glob(filepath.Join(conformanceDir, "sqlite", "*", "migrate"))
	if len(sources) == 0 {
		tb.Skipf("conformance corpus not found at %s", conformanceDir)
	}
	var pool []Bundle
	for _, src := range sources {
		c, err := Load(src)
		if err != nil {
			tb.Fatal(err)
		}
		pool = append(pool, c.Bundles...)
	}
	for p := range pkgs {
		name := fmt.Sprintf("generated-operator-%03d", p)
		c := &Catalog{Packages: []Package{{Schema: SchemaPackage, Name: name, DefaultChannel: "stable"}}}
		ch := Channel{Schema: SchemaChannel, Name: "stable", Package: name}
		for i := range perPkg {
			b := pool[(p*perPkg+i)%len(pool)]
			b.Name, b.Package = fmt.Sprintf("%s.v1.%d.0", name, i), name
			c.Bundles = append(c.Bundles, b)
			entry := ChannelEntry{Name: b.Name}
			if i > 0 {
				entry.Replaces = fmt.Sprintf("%s.v1.%d.0", name, i-1)
			}
			ch.Entries = append(ch.Entries, entry)
		}
		c.Channels = []Channel{ch}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, name, "catalog.json"))
		if err != nil {
			tb.Fatal(err)
		}
		if err := Write(f, c, JSON); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	dir, size := benchCatalog(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		c, err := Load(dir)
		if err != nil || len(c.Bundles) == 0 {
			b.Fatalf("%d bundles, %v", len(c.Bundles), err)
		}
	}
}

func BenchmarkWalk(b *testing.B) {
	dir, size := benchCatalog(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := Walk(dir, func(Blob) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("%d blobs, %v", n, err)
		}
	}
}

func BenchmarkWalkPackages(b *testing.B) {
	dir, size := benchCatalog(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := WalkPackages(dir, func(string, *Catalog) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("%d packages, %v", n, err)
		}
	}
}

// BenchmarkWalkPackagesDeferring is WalkPackages as a filter calls it: every bundle left
// undecoded (Loader.DeferBundle), so that what is measured is the reading of the catalog.
func BenchmarkWalkPackagesDeferring(b *testing.B) {
	dir, size := benchCatalog(b)
	b.SetBytes(size)
	l := Loader{DeferBundle: func(Blob) bool { return true }}
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := l.WalkPackages(dir, func(_ string, c *Catalog) error { n += len(c.Bundles); return nil }); err != nil || n == 0 {
			b.Fatalf("%d bundles, %v", n, err)
		}
	}
}

// BenchmarkPlaceJSON is the first reading of WalkPackages for one package file in opm's layout:
// split, check and find the heads of its blobs in one pass (the file is in memory).
func BenchmarkPlaceJSON(b *testing.B) {
	dir, _ := benchCatalog(b)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "catalog.json"))
	if len(files) == 0 {
		b.Fatalf("no <package>/catalog.json under %s", dir)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if placed, ok := placeJSON(data, 0, DefaultMaxBlobSize, nil); !ok || len(placed) == 0 {
			b.Fatalf("%d blobs placed (%v)", len(placed), ok)
		}
	}
}
