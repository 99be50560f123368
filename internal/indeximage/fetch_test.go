package indeximage

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// startRegistry runs go-containerregistry's in-memory registry on loopback; handler wrappers can
// tamper with its answers. It returns the registry host ("127.0.0.1:PORT").
func startRegistry(t testing.TB, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func push(t testing.TB, ref string, img v1.Image) {
	t.Helper()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(r, img); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
}

func fetch(t testing.TB, ref string, opts Options) (*Catalog, error) {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	opts.fastRetries = true
	cat, err := Fetch(context.Background(), ref, opts)
	if err == nil {
		t.Cleanup(cat.Cleanup)
	}
	return cat, err
}

func sameFile(t testing.TB, got, want string) {
	t.Helper()
	a, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("%s (%d bytes) differs from %s (%d bytes)", got, len(a), want, len(b))
	}
}

func TestFetchSQLiteFromRegistry(t *testing.T) {
	host := startRegistry(t, nil)
	img := sqliteImage(t, amd64)
	push(t, host+"/ns/index:v4.12", img)
	cat, err := fetch(t, host+"/ns/index:v4.12", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cat.Kind != SQLite || cat.ImagePath != "/database/index.db" {
		t.Errorf("kind %v at %s, want sqlite at /database/index.db", cat.Kind, cat.ImagePath)
	}
	sameFile(t, cat.Path, sqliteFixture)
	if cat.LayersRead != 1 || cat.LayersTotal != 2 {
		t.Errorf("read %d of %d layers, want only the top one of 2", cat.LayersRead, cat.LayersTotal)
	}
	want, _ := img.Digest()
	if cat.Digest != want {
		t.Errorf("digest %s, want %s", cat.Digest, want)
	}
	dir := filepath.Dir(cat.Path)
	cat.Cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Cleanup left %s behind", dir)
	}
}

func TestFetchFBCFromRegistryAndByDigest(t *testing.T) {
	catalog := filepath.Join(conformanceDir, "fbc", "community-v4.12-bundleobject-subset", "catalog")
	host := startRegistry(t, nil)
	img := fbcImage(t, catalog, amd64)
	push(t, host+"/ns/fbc:latest", img)
	digest, _ := img.Digest()
	for _, ref := range []string{host + "/ns/fbc", "docker://" + host + "/ns/fbc@" + digest.String()} {
		cat, err := fetch(t, ref, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if cat.Kind != FBC {
			t.Errorf("%s: kind %v, want fbc", ref, cat.Kind)
		}
		if diff := cmp.Diff(treeOf(t, os.DirFS(catalog)), treeOf(t, cat.Files)); diff != "" {
			t.Errorf("%s: extracted catalog differs (-want +got):\n%s", ref, diff)
		}
	}
}

func multiArchIndex(t testing.TB) (v1.ImageIndex, v1.Image, v1.Image) {
	catalogs, _ := filepath.Glob(filepath.Join(conformanceDir, "fbc", "*", "catalog"))
	if len(catalogs) < 2 {
		t.Skip("conformance FBC catalogs absent")
	}
	arm := v1.Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}
	amdImg, armImg := fbcImage(t, catalogs[0], amd64), fbcImage(t, catalogs[1], arm)
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: armImg, Descriptor: v1.Descriptor{Platform: &arm}},
		mutate.IndexAddendum{Add: amdImg, Descriptor: v1.Descriptor{Platform: &amd64}})
	return idx, amdImg, armImg
}

func TestFetchMultiArchPicksPlatform(t *testing.T) {
	idx, amdImg, armImg := multiArchIndex(t)
	host := startRegistry(t, nil)
	ref, _ := name.ParseReference(host + "/ns/multi:v1")
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		platform string
		want     v1.Image
	}{{"", amdImg}, {"linux/arm64", armImg}, {"linux/arm64/v8", armImg}} {
		cat, err := fetch(t, ref.String(), Options{Platform: c.platform})
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := c.want.Digest(); cat.Digest != want {
			t.Errorf("platform %q: got image %s, want %s", c.platform, cat.Digest, want)
		}
	}
	_, err := fetch(t, ref.String(), Options{Platform: "linux/s390x"})
	if err == nil || !strings.Contains(err.Error(), "linux/amd64, linux/arm64/v8") || !strings.Contains(err.Error(), "--platform") {
		t.Errorf("missing platform: got %v, want the available platforms listed", err)
	}
	if _, err := fetch(t, ref.String(), Options{Platform: "amd64"}); err == nil || !strings.Contains(err.Error(), "OS/ARCH") {
		t.Errorf("malformed platform: got %v", err)
	}
}

func TestFetchFromOCILayout(t *testing.T) {
	idx, amdImg, _ := multiArchIndex(t)
	needFile(t, sqliteFixture)
	dir := t.TempDir()
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	sqlite := sqliteImage(t, amd64)
	if err := lp.AppendImage(sqlite, layout.WithAnnotations(map[string]string{refNameAnnotation: "v4.12"})); err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: "quay.io/ns/multi:v2"})); err != nil {
		t.Fatal(err)
	}
	sqliteDigest, _ := sqlite.Digest()
	amdDigest, _ := amdImg.Digest()
	for ref, want := range map[string]v1.Hash{
		"oci-layout:" + dir + ":v4.12":                    sqliteDigest,
		"oci-layout:" + dir + "@" + sqliteDigest.String(): sqliteDigest,
		"oci-layout:" + dir + ":v2":                       amdDigest,
		"oci-layout:" + dir + ":quay.io/ns/multi:v2":      amdDigest,
	} {
		cat, err := fetch(t, ref, Options{})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if cat.Digest != want {
			t.Errorf("%s: got %s, want %s", ref, cat.Digest, want)
		}
		if want == sqliteDigest {
			sameFile(t, cat.Path, sqliteFixture)
		}
	}
	_, err = fetch(t, "oci-layout:"+dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "v4.12") || !strings.Contains(err.Error(), ":TAG or @DIGEST") {
		t.Errorf("ambiguous layout: got %v, want the entries listed", err)
	}
	if _, err := fetch(t, "oci-layout:"+dir+":nope", Options{}); err == nil || !strings.Contains(err.Error(), "no entry for tag nope") {
		t.Errorf("unknown tag: got %v", err)
	}
	if _, err := fetch(t, "oci-layout:"+t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "not an OCI image layout") {
		t.Errorf("not a layout: got %v", err)
	}
}

func TestFetchFromDockerArchive(t *testing.T) {
	img := sqliteImage(t, amd64)
	archive := filepath.Join(t.TempDir(), "index.tar")
	tag, _ := name.NewTag("quay.io/ns/index:v4.12")
	if err := tarball.WriteToFile(archive, tag, img); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"docker-archive:" + archive, "docker-archive:" + archive + ":quay.io/ns/index:v4.12"} {
		cat, err := fetch(t, ref, Options{})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		sameFile(t, cat.Path, sqliteFixture)
	}
	if _, err := fetch(t, "docker-archive:"+archive+":quay.io/ns/other:v1", Options{}); err == nil {
		t.Error("a tag the archive does not hold was accepted")
	}
	if _, err := fetch(t, "docker-archive:/nonexistent/x.tar", Options{}); err == nil || !strings.Contains(err.Error(), "docker save") {
		t.Errorf("missing archive: got %v", err)
	}
}
