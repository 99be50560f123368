package main

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/olmcat/olmcat/internal/indeximage"
)

const fooIndexCase = "../../../shared/conformance/sqlite/real-foo-index-v0.2.0"

// pushFooIndexImage pushes an index image holding the real foo index.db (read at test time) to a
// loopback registry and returns its reference.
func pushFooIndexImage(t *testing.T) string {
	t.Helper()
	db, err := os.ReadFile(filepath.Join(fooIndexCase, "input.db"))
	if err != nil {
		t.Skipf("conformance data absent: %v", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "database/", Mode: 0o755})
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "database/index.db", Mode: 0o644, Size: int64(len(db))})
	tw.Write(db)
	tw.Close()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	img, err = mutate.Config(img, v1.Config{
		Labels:     map[string]string{indeximage.DatabaseLabel: "/database/index.db"},
		Entrypoint: []string{"/bin/opm"}, Cmd: []string{"registry", "serve", "--database", "/database/index.db"},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	ref := strings.TrimPrefix(srv.URL, "http://") + "/ns/foo-index:v0.2.0"
	r, _ := name.ParseReference(ref)
	if err := remote.Write(r, img); err != nil {
		t.Fatal(err)
	}
	return ref
}

func filesOf(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, err := fs.ReadFile(fsys, p)
			out[p] = string(b)
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs from opm's", k)
		}
	}
}

func TestMigrateIndexImage(t *testing.T) {
	ref := pushFooIndexImage(t)
	opm := filesOf(t, os.DirFS(filepath.Join(fooIndexCase, "migrate")))
	out := t.TempDir()

	fbcDir := filepath.Join(out, "fbc")
	newRef := strings.Replace(ref, ":v0.2.0", ":v0.2.0-fbc", 1)
	if code, _, _ := runCLI(t, "migrate", ref, fbcDir, "--to-image", newRef); code != 0 {
		t.Fatalf("migrate %s: exit code %d", ref, code)
	}
	sameFiles(t, filesOf(t, os.DirFS(fbcDir)), opm)
	cat, err := indeximage.Fetch(context.Background(), newRef, indeximage.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Cleanup()
	if cat.Kind != indeximage.FBC || cat.ImagePath != "/configs" {
		t.Fatalf("new image holds %v at %s", cat.Kind, cat.ImagePath)
	}
	sameFiles(t, filesOf(t, cat.Files), opm)

	layoutDir := filepath.Join(out, "layout")
	if code, _, _ := runCLI(t, "migrate", "docker://"+ref, filepath.Join(out, "fbc2"), "--oci-layout", layoutDir); code != 0 {
		t.Fatalf("migrate --oci-layout: exit code %d", code)
	}
	again, err := indeximage.Fetch(context.Background(), "oci-layout:"+layoutDir, indeximage.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Cleanup()
	if again.Digest != cat.Digest {
		t.Errorf("the same input gave image %s, then %s", cat.Digest, again.Digest)
	}

	// An FBC image migrates to the same FBC directory (there is nothing to convert); a new image
	// on top of it would have nothing to replace.
	if code, _, stderr := runCLI(t, "migrate", newRef, filepath.Join(out, "fbc3")); code != 0 {
		t.Errorf("migrating an FBC image to a directory: exit code %d: %s", code, stderr)
	} else if a, b := concatenated(t, filepath.Join(out, "fbc"), ".json"), concatenated(t, filepath.Join(out, "fbc3"), ".json"); a != b {
		t.Errorf("the FBC image does not migrate back to the catalog it was built from")
	}
	if code, _, stderr := runCLI(t, "migrate", newRef, filepath.Join(out, "fbc6"), "--oci-layout", filepath.Join(out, "l3")); code != exitUsage || !strings.Contains(stderr, "already a File-Based Catalog image") {
		t.Errorf("--oci-layout from an FBC image: exit code %d, want %d: %s", code, exitUsage, stderr)
	}
	if code, _, _ := runCLI(t, "migrate", filepath.Join(fooIndexCase, "input.db"), filepath.Join(out, "fbc4"), "--oci-layout", filepath.Join(out, "l2")); code != exitUsage {
		t.Errorf("--oci-layout with a local index.db: exit code %d, want %d", code, exitUsage)
	}
	if code, _, _ := runCLI(t, "migrate", strings.Replace(ref, "foo-index", "nothing", 1), filepath.Join(out, "fbc5")); code != exitUsage {
		t.Errorf("missing image: exit code %d, want %d", code, exitUsage)
	}
}
