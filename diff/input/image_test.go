package input_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/internal/indeximage"
)

const realFooDB = "../../../shared/conformance/sqlite/real-foo-index-v0.2.0/input.db"

// ociIndexImage writes an OCI layout holding an index image whose /database/index.db is the given
// file, and returns its reference.
func ociIndexImage(t *testing.T, db string) string {
	t.Helper()
	data, err := os.ReadFile(db)
	if err != nil {
		t.Skipf("conformance corpus not available (%s): %v", db, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Typeflag: tar.TypeDir, Name: "database/", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: "database/index.db", Mode: 0o644, Size: int64(len(data))},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = map[string]string{indeximage.DatabaseLabel: "/database/index.db"}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	return indeximage.OCILayoutPrefix + dir
}

// An index image (OCI layout) holding an index.db against the same index.db as a file: mixed
// inputs, no finding.
func TestImageSide(t *testing.T) {
	ref := ociIndexImage(t, realFooDB)
	oldSide, newSide, err := input.OpenPair(context.Background(), ref, realFooDB, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if oldSide.Format != "image/sqlite" || oldSide.Source != ref || len(oldSide.Catalog.Bundles) != 2 {
		t.Errorf("image side: %s %s, %d bundles", oldSide.Format, oldSide.Source, len(oldSide.Catalog.Bundles))
	}
	if r := diff.Compare(oldSide, newSide); len(r.Findings) != 0 {
		t.Errorf("findings: %+v", r.Findings)
	}
}
