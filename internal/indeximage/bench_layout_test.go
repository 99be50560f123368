package indeximage

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
)

// TestWriteBenchImage writes the catalog directory OLMCAT_IMAGE_BENCH_DIR, files as they are, as an
// oci-layout image at OLMCAT_IMAGE_BENCH_LAYOUT: make bench reads it against the directory.
func TestWriteBenchImage(t *testing.T) {
	dir, out := os.Getenv("OLMCAT_IMAGE_BENCH_DIR"), os.Getenv("OLMCAT_IMAGE_BENCH_LAYOUT")
	if dir == "" || out == "" {
		t.Skip("set OLMCAT_IMAGE_BENCH_DIR and OLMCAT_IMAGE_BENCH_LAYOUT (make bench does)")
	}
	img, err := BuildFBCImage(empty.Image, dir, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteImage(context.Background(), img, OCILayoutPrefix+out, false, Options{}); err != nil {
		t.Fatal(err)
	}
	cat, err := Fetch(context.Background(), OCILayoutPrefix+out, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Cleanup()
	t.Logf("%s: %d files, %d bytes", out, cat.Files.Files(), cat.Files.Bytes())
}
