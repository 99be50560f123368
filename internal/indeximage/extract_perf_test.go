package indeximage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// manyFilesLayer is a gzipped layer holding dirs*perDir files of size bytes under configs/,
// the shape of a large split FBC catalog.
func manyFilesLayer(tb testing.TB, dirs, perDir, size int) v1.Layer {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	body := []byte(strings.Repeat("x", size))
	add := func(h *tar.Header, b []byte) {
		if err := tw.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			tb.Fatal(err)
		}
	}
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "configs/", Mode: 0o755}, nil)
	for d := range dirs {
		add(&tar.Header{Typeflag: tar.TypeDir, Name: fmt.Sprintf("configs/pkg%d/", d), Mode: 0o755}, nil)
		for f := range perDir {
			add(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("configs/pkg%d/b%d.json", d, f), Mode: 0o644, Size: int64(size)}, body)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	b := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil })
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// TestExtractMemoryDoesNotGrowWithFileCount guards against a per-file copy buffer: extracting
// 2,000 small files allocated 2 GB when each file got a 1 MiB buffer.
func TestExtractMemoryDoesNotGrowWithFileCount(t *testing.T) {
	const files = 2000
	img := imageWith(t, fbcLabels, amd64, manyFilesLayer(t, 20, files/20, 100))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := cat.Files.Files(); n != files {
		t.Fatalf("extracted %d files, want %d", n, files)
	}
	// Tar headers, paths and file handles cost about 2 KiB per file; one copy buffer 1 MiB.
	got, limit := after.TotalAlloc-before.TotalAlloc, uint64(4<<20+files*(8<<10))
	t.Logf("%d files: %d KiB allocated", files, got>>10)
	if got > limit {
		t.Errorf("extracting %d files allocated %d MiB, want at most %d MiB", files, got>>20, limit>>20)
	}
}

// BenchmarkExtractManyFiles extracts 20,000 files from one layer: what reading a large FBC
// catalog image costs beyond reading the same files from a directory.
func BenchmarkExtractManyFiles(b *testing.B) {
	for _, size := range []int{0, 200} {
		b.Run(fmt.Sprintf("20000x%dB", size), func(b *testing.B) {
			img := imageWith(b, fbcLabels, amd64, manyFilesLayer(b, 200, 100, size))
			tmp := b.TempDir()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				cat, err := Extract(context.Background(), img, Options{TempDir: tmp})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if n := cat.Files.Files(); n != 20000 {
					b.Fatalf("extracted %d files, want 20000", n)
				}
				cat.Cleanup()
				b.StartTimer()
			}
		})
	}
}
