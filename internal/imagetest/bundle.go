package imagetest

import (
	"bytes"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
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
	"sigs.k8s.io/yaml"
)

// BundleImage is the image a bundle.Dockerfile builds from the bundle directory dir: one layer
// holding /manifests and /metadata, labelled with the annotations of metadata/annotations.yaml.
func BundleImage(t testing.TB, dir string) v1.Image {
	t.Helper()
	return LabelledBundleImage(t, dir, Annotations(t, dir))
}

// LabelledBundleImage is BundleImage with the given labels.
func LabelledBundleImage(t testing.TB, dir string, labels map[string]string) v1.Image {
	t.Helper()
	files := map[string][]byte{}
	for _, sub := range []string{"manifests", "metadata"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			files[path.Clean(filepath.ToSlash(rel))] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return Image(t, files, labels)
}

// Annotations reads the annotations of a bundle directory's metadata/annotations.yaml.
func Annotations(t testing.TB, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Annotations map[string]string }
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return doc.Annotations
}

// TarImage is an image of one layer, the tar stream layer (entries of any kind), with labels.
func TarImage(t testing.TB, layer []byte, labels map[string]string) v1.Image {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layer)), nil })
	if err != nil {
		t.Fatal(err)
	}
	img, err := mutate.AppendLayers(empty.Image, l)
	if err != nil {
		t.Fatal(err)
	}
	return withLabels(t, img, labels)
}

// Registry serves an in-memory registry on loopback for the test and returns its host.
func Registry(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// Push writes img to the registry reference ref.
func Push(t testing.TB, ref string, img v1.Image) {
	t.Helper()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, img); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
}

// AliasRegistry serves an in-memory registry on loopback for the test in which every tag of the
// repository repo is img (pushed once as repo:base): a template can name thousands of images
// without thousands of pushes. It returns the registry's host.
func AliasRegistry(t testing.TB, repo string, img v1.Image) string {
	t.Helper()
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	prefix := "/v2/" + repo + "/manifests/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if tag, ok := strings.CutPrefix(req.URL.Path, prefix); ok && !strings.HasPrefix(tag, "sha256:") && req.Method != http.MethodPut {
			req.URL.Path = prefix + "base"
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	Push(t, host+"/"+repo+":base", img)
	return host
}
