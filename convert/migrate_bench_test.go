package convert

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

const s5kBench = "../shared/bench/s5k/index.db.gz"

// BenchmarkMigrateS5K converts the 5,000-bundle benchmark index (see shared/bench/README.md) to a
// JSON catalog directory. opm v1.72 migrate takes 32 s and 2.77 GB on it.
func BenchmarkMigrateS5K(b *testing.B) {
	src, err := os.Open(s5kBench)
	if err != nil {
		b.Skipf("benchmark index not found at %s: %v", s5kBench, err)
	}
	defer src.Close()
	zr, err := gzip.NewReader(src)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	db := filepath.Join(dir, "index.db")
	f, err := os.Create(db)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, zr); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(dir, "out")
		report, err := migrateIndex(db, out, MigrateOptions{Force: true})
		if err != nil {
			b.Fatal(err)
		}
		if report.Bundles != 5000 {
			b.Fatalf("converted %d bundles, want 5000", report.Bundles)
		}
	}
}
