package indeximage

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// migratedFixture is opm's own migrate output of sqliteFixture: the FBC that goes with it.
var migratedFixture = filepath.Join(conformanceDir, "sqlite", "real-foo-index-v0.2.0", "migrate")

func build(t testing.TB, base v1.Image, configs string, opts BuildOptions) v1.Image {
	t.Helper()
	img, err := BuildFBCImage(base, configs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func digestOf(t testing.TB, img v1.Image) v1.Hash {
	t.Helper()
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func layerNames(t testing.TB, l v1.Layer) []string {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var names []string
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(time.Unix(0, 0)) || h.Uname != "" {
			t.Errorf("%s: owner %d:%d %q, mtime %v; want root and the epoch", h.Name, h.Uid, h.Gid, h.Uname, h.ModTime)
		}
		names = append(names, h.Name)
	}
}

func TestBuildFBCImageFromSQLiteIndex(t *testing.T) {
	needFile(t, migratedFixture)
	base := sqliteImage(t, amd64)
	img := build(t, base, migratedFixture, BuildOptions{})

	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	baseLayers, _ := base.Layers()
	if len(layers) != 2 || digestOf(t, base) == digestOf(t, img) {
		t.Fatalf("got %d layers, want the base layer and the configs layer", len(layers))
	}
	if got, want := mustDigest(t, layers[0]), mustDigest(t, baseLayers[0]); got != want {
		t.Errorf("first layer %s is not the base's %s", got, want)
	}
	names := layerNames(t, layers[1])
	if names[0] != ".wh.database" || names[1] != "configs/" {
		t.Errorf("configs layer starts with %q, want the /database whiteout then configs/", names[:2])
	}

	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cf.Config.Labels[DatabaseLabel]; ok || cf.Config.Labels[ConfigsLabel] != "/configs" {
		t.Errorf("labels %v: want the configs label and no database label", cf.Config.Labels)
	}
	if want := []string{"/bin/opm"}; !cmp.Equal(cf.Config.Entrypoint, want) || !cmp.Equal(cf.Config.Cmd, []string{"serve", "/configs"}) {
		t.Errorf("entrypoint %q cmd %q", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" || len(cf.History) != 2 || len(cf.RootFS.DiffIDs) != 2 {
		t.Errorf("platform %s/%s, %d history entries, %d diff IDs", cf.OS, cf.Architecture, len(cf.History), len(cf.RootFS.DiffIDs))
	}

	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cat.Kind != FBC || cat.ImagePath != "/configs" {
		t.Errorf("built image reads back as %v at %s", cat.Kind, cat.ImagePath)
	}
	if diff := cmp.Diff(treeOf(t, os.DirFS(migratedFixture)), treeOf(t, cat.Files)); diff != "" {
		t.Errorf("catalog read back (-want +got):\n%s", diff)
	}
}

func mustDigest(t testing.TB, l v1.Layer) v1.Hash {
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// copyTree copies a directory; the copies get fresh mtimes and, here, the umask's permissions.
func copyTree(t testing.TB, src string) string {
	dst := t.TempDir()
	for rel, content := range treeOf(t, os.DirFS(src)) {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if content == "/" {
			os.MkdirAll(p, 0o700)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestBuildFBCImageIsReproducible(t *testing.T) {
	needFile(t, migratedFixture)
	first := digestOf(t, build(t, sqliteImage(t, amd64), migratedFixture, BuildOptions{}))
	time.Sleep(10 * time.Millisecond)
	again := digestOf(t, build(t, sqliteImage(t, amd64), copyTree(t, migratedFixture), BuildOptions{}))
	if first != again {
		t.Errorf("same inputs gave %s then %s", first, again)
	}
	other := digestOf(t, build(t, sqliteImage(t, amd64), migratedFixture, BuildOptions{Created: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}))
	if other == first {
		t.Error("a different created time did not change the digest")
	}
}

func TestBuildFBCImageWithCacheAndLabels(t *testing.T) {
	needFile(t, migratedFixture)
	cache := t.TempDir()
	os.WriteFile(filepath.Join(cache, "digest"), []byte("abc"), 0o644)
	img := build(t, sqliteImage(t, amd64), migratedFixture, BuildOptions{CacheDir: cache, ExtraLabels: map[string]string{"vendor": "acme"}})
	cf, _ := img.ConfigFile()
	if !cmp.Equal(cf.Config.Cmd, []string{"serve", "/configs", "--cache-dir=/tmp/cache"}) || cf.Config.Labels["vendor"] != "acme" {
		t.Errorf("cmd %q labels %v", cf.Config.Cmd, cf.Config.Labels)
	}
	layers, _ := img.Layers()
	if names := layerNames(t, layers[len(layers)-1]); !cmp.Equal(names, []string{"tmp/", "tmp/cache/", "tmp/cache/digest"}) {
		t.Errorf("cache layer holds %q", names)
	}
}

func TestBuildKeepsMixedLayersAndWhitesOutTheDatabase(t *testing.T) {
	needFile(t, migratedFixture)
	mixed := layerOf(t, dir("bin"), file("bin/opm", "opm"), dir("database"), file("database/index.db", "db"))
	base := imageWith(t, map[string]string{DatabaseLabel: "/database/index.db"}, amd64, mixed)
	base = mutate.MediaType(base, types.DockerManifestSchema2)
	img := build(t, base, migratedFixture, BuildOptions{})
	layers, _ := img.Layers()
	if len(layers) != 2 {
		t.Fatalf("%d layers, want the mixed base layer kept plus configs", len(layers))
	}
	if mt, _ := layers[1].MediaType(); mt != types.DockerLayer {
		t.Errorf("configs layer media type %s, want the docker one of a docker base", mt)
	}
	asSQLite, err := mutate.Config(img, v1.Config{Labels: map[string]string{DatabaseLabel: "/database/index.db"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extractImage(t, asSQLite, Options{}); err == nil || !strings.Contains(err.Error(), "no layer holds it") {
		t.Errorf("the database is still visible in the built image: %v", err)
	}
}

func TestWriteImageAndReadBack(t *testing.T) {
	needFile(t, migratedFixture)
	host := startRegistry(t, nil)
	push(t, host+"/ns/index:v1", sqliteImage(t, amd64))
	src, err := fetch(t, host+"/ns/index:v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(src.DatabaseLayers) != 1 {
		t.Fatalf("Fetch found %d database-only layers, want 1", len(src.DatabaseLayers))
	}
	img := build(t, src.Image, migratedFixture, BuildOptions{DatabaseLayers: src.DatabaseLayers})
	if want := digestOf(t, build(t, sqliteImage(t, amd64), migratedFixture, BuildOptions{})); digestOf(t, img) != want {
		t.Errorf("building on the fetched image with the hint gave %s, on the local image %s", digestOf(t, img), want)
	}
	out := t.TempDir()
	dests := map[string]string{
		host + "/ns/index:v1-fbc":                            host + "/ns/index:v1-fbc",
		"oci-layout:" + filepath.Join(out, "layout") + ":v1": "oci-layout:" + filepath.Join(out, "layout") + ":v1",
		"docker-archive:" + filepath.Join(out, "index.tar"):  "docker-archive:" + filepath.Join(out, "index.tar"),
	}
	for dest, ref := range dests {
		d, err := WriteImage(context.Background(), img, dest, false, Options{})
		if err != nil {
			t.Fatalf("%s: %v", dest, err)
		}
		cat, err := fetch(t, ref, Options{})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if cat.Kind != FBC || (cat.Digest != v1.Hash{} && cat.Digest != d) {
			t.Errorf("%s: read back %v %s, wrote %s", ref, cat.Kind, cat.Digest, d)
		}
		if diff := cmp.Diff(treeOf(t, os.DirFS(migratedFixture)), treeOf(t, cat.Files)); diff != "" {
			t.Errorf("%s: catalog read back (-want +got):\n%s", ref, diff)
		}
	}
	if _, err := WriteImage(context.Background(), img, "oci-layout:"+filepath.Join(out, "layout"), false, Options{}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("overwriting a layout without force: %v", err)
	}
	if _, err := WriteImage(context.Background(), img, "oci-layout:"+filepath.Join(out, "layout"), true, Options{}); err != nil {
		t.Errorf("overwriting a layout with force: %v", err)
	}
}
