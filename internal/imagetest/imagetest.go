// Package imagetest builds small index images for tests, daemonless: an FBC directory or an
// index.db in one layer, written as an OCI layout or a docker archive, and broken variants (no
// catalog label, a corrupt layer).
package imagetest

import (
	"archive/tar"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// FBCImage is an image whose /configs layer holds the catalog directory dir, labelled as opm labels
// FBC index images.
func FBCImage(t testing.TB, dir string) v1.Image {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		files[path.Join("configs", filepath.ToSlash(rel))] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return Image(t, files, map[string]string{indeximage.ConfigsLabel: "/configs"})
}

// DBImage is an image whose /database/index.db is the file db, labelled as opm labels index images.
func DBImage(t testing.TB, db string) v1.Image {
	t.Helper()
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	return Image(t, map[string][]byte{"database/index.db": data}, map[string]string{indeximage.DatabaseLabel: "/database/index.db"})
}

// Image is an image of one layer holding files (slash paths), with labels.
func Image(t testing.TB, files map[string][]byte, labels map[string]string) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layerOf(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return withLabels(t, img, labels)
}

// CorruptLayerImage is an FBC image whose layer is not a valid gzip stream.
func CorruptLayerImage(t testing.TB) v1.Image {
	t.Helper()
	layer := static.NewLayer([]byte("\x1f\x8b\x08\x00this is not gzip data"), types.DockerLayer)
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	return withLabels(t, img, map[string]string{indeximage.ConfigsLabel: "/configs"})
}

func withLabels(t testing.TB, img v1.Image, labels map[string]string) v1.Image {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = labels
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func layerOf(t testing.TB, files map[string][]byte) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names) // parents before their files
	for _, n := range names {
		for d := path.Dir(n); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755}); err != nil {
				t.Fatal(err)
			}
		}
		data := files[n]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	return layer
}

// OCILayout writes img as a new OCI layout under a temporary directory and returns its reference
// (oci-layout:DIR).
func OCILayout(t testing.TB, img v1.Image) string {
	t.Helper()
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

// DockerArchive writes img as a docker archive (docker save format) and returns its reference
// (docker-archive:FILE).
func DockerArchive(t testing.TB, img v1.Image) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "image.tar")
	tag, err := name.NewTag(indeximage.DefaultArchiveTag)
	if err != nil {
		t.Fatal(err)
	}
	if err := tarball.WriteToFile(file, tag, img); err != nil {
		t.Fatal(err)
	}
	return indeximage.DockerArchivePrefix + file
}
