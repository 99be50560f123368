package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/olmcat/olmcat/grpccompat/opmcache"
	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/indeximage"
)

var fourPlatforms = []string{"linux/amd64", "linux/arm64", "linux/ppc64le", "linux/s390x"}

// olmcatBase is a fake olmcat base index (as 'make image' builds it) in an OCI layout.
func olmcatBase(t *testing.T, platforms ...string) string {
	return imagetest.OCILayoutIndex(t, imagetest.BaseIndex(t, "bin/olmcat", []string{"/bin/olmcat"}, []string{"serve", "/configs", "--cache-dir=/tmp/cache"}, platforms...))
}

// opmBase is a fake opm base index, as quay.io/operator-framework/opm is published (entrypoint
// /bin/opm, no catalog labels).
func opmBase(t *testing.T, platforms ...string) v1.ImageIndex {
	return imagetest.BaseIndexUser(t, "1001", "bin/opm", []string{"/bin/opm"}, []string{"--help"}, platforms...)
}

// builtIndex reads the index of an OCI layout build wrote.
func builtIndex(t *testing.T, dir string) v1.ImageIndex {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := root.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("layout %s holds %v: %v", dir, m, err)
	}
	idx, err := root.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// layerFiles lists the entries of a layer.
func layerFiles(t *testing.T, l v1.Layer) map[string]*tar.Header {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimSuffix(h.Name, "/")] = h
	}
}

// checkBuiltIndex checks a catalog image index built on base for platforms: one image per
// platform, on that platform's base image (its layer first), then the same /configs and
// /tmp/cache layers in every image, opm's label, the entrypoint and opm's Dockerfile's command.
func checkBuiltIndex(t *testing.T, idx v1.ImageIndex, base v1.ImageIndex, platforms []string, entrypoint string) {
	t.Helper()
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var configs, cache v1.Hash
	for _, d := range m.Manifests {
		got = append(got, d.Platform.String())
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.Platform().String() != d.Platform.String() {
			t.Errorf("%s: the image's config says %s", d.Platform, cf.Platform())
		}
		if !slices.Equal(cf.Config.Entrypoint, []string{entrypoint}) || !slices.Equal(cf.Config.Cmd, []string{"serve", "/configs", "--cache-dir=/tmp/cache"}) {
			t.Errorf("%s: ENTRYPOINT %q CMD %q, want [%q] and opm's Dockerfile's [serve /configs --cache-dir=/tmp/cache]", d.Platform, cf.Config.Entrypoint, cf.Config.Cmd, entrypoint)
		}
		if cf.Config.Labels[indeximage.ConfigsLabel] != "/configs" || cf.Config.Labels["base.platform"] != d.Platform.String() {
			t.Errorf("%s: labels %v: want %s=/configs and the base's own labels", d.Platform, cf.Config.Labels, indeximage.ConfigsLabel)
		}
		layers, err := img.Layers()
		if err != nil || len(layers) != 3 {
			t.Fatalf("%s: %d layers (%v), want the base's, /configs and /tmp/cache", d.Platform, len(layers), err)
		}
		baseImg := baseImageOf(t, base, *d.Platform)
		baseLayers, _ := baseImg.Layers()
		bd, _ := baseLayers[0].Digest()
		if ld, _ := layers[0].Digest(); ld != bd {
			t.Errorf("%s: first layer %s is not the base's %s", d.Platform, ld, bd)
		}
		c, _ := layers[1].Digest()
		k, _ := layers[2].Digest()
		if configs.Hex == "" {
			configs, cache = c, k
		} else if c != configs || k != cache {
			t.Errorf("%s: layers %s, %s differ from the first platform's %s, %s: the catalog and cache layers are built once", d.Platform, c, k, configs, cache)
		}
		if files := layerFiles(t, layers[1]); files["configs/operator-000/catalog.json"] == nil && files["configs/operator-000/catalog.yaml"] == nil {
			t.Errorf("%s: the /configs layer holds %v", d.Platform, keys(files))
		}
		files := layerFiles(t, layers[2])
		n := 0
		for f, h := range files {
			if strings.HasPrefix(f, "tmp/cache/") && h.Typeflag == tar.TypeReg {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: the cache layer holds no file under tmp/cache: %v", d.Platform, keys(files))
		}
	}
	if !slices.Equal(got, platforms) {
		t.Errorf("index platforms %v, want %v", got, platforms)
	}
}

func keys(m map[string]*tar.Header) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func baseImageOf(t *testing.T, base v1.ImageIndex, p v1.Platform) v1.Image {
	t.Helper()
	m, _ := base.IndexManifest()
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.String() == p.String() {
			img, err := base.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("base has no %s", p)
	return nil
}

func TestBuildOnOlmcatBaseEveryPlatform(t *testing.T) {
	base := olmcatBase(t, fourPlatforms...)
	baseIdx := builtIndexRoot(t, strings.TrimPrefix(base, indeximage.OCILayoutPrefix))
	out := filepath.Join(t.TempDir(), "image")
	code, stdout, stderr := runCLI(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+out, "--base", base, "--platform", "all", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res builtImage
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("-o json: %v\n%s", err, stdout)
	}
	idx := builtIndex(t, out)
	checkBuiltIndex(t, idx, baseIdx, fourPlatforms, "/bin/olmcat")
	d, _ := idx.Digest()
	if res.Digest != d.String() || res.Server != "olmcat" || len(res.Platforms) != 4 || res.Reference != "oci-layout:"+out {
		t.Errorf("-o json %+v; the index written is %s", res, d)
	}
	m, _ := idx.IndexManifest()
	for i, p := range res.Platforms {
		if p.Platform != m.Manifests[i].Platform.String() || p.Digest != m.Manifests[i].Digest.String() {
			t.Errorf("-o json platform %d: %+v, the index has %s %s", i, p, m.Manifests[i].Platform, m.Manifests[i].Digest)
		}
	}
}

// builtIndexRoot is the one index of a base's OCI layout.
func builtIndexRoot(t *testing.T, dir string) v1.ImageIndex { return builtIndex(t, dir) }

// Two runs on the same inputs give the same index digest; SOURCE_DATE_EPOCH stamps the images'
// created time and the new layers' file times, and so changes the digest, the same way each time.
func TestBuildIsReproducible(t *testing.T) {
	base := olmcatBase(t, "linux/amd64", "linux/arm64")
	digest := func() (string, v1.ImageIndex) {
		out := filepath.Join(t.TempDir(), "image")
		stdout := mustRun(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+out, "--base", base, "--platform", "linux/arm64,linux/amd64")
		return strings.TrimSpace(stdout), builtIndex(t, out)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	first, idx := digest()
	if again, _ := digest(); again != first {
		t.Fatalf("two builds of the same inputs: %s then %s", first, again)
	}
	if d, _ := idx.Digest(); d.String() != first {
		t.Fatalf("build printed %s, the layout holds %s", first, d)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	stamped, sidx := digest()
	if stamped == first {
		t.Fatalf("SOURCE_DATE_EPOCH did not change the digest %s", first)
	}
	if again, _ := digest(); again != stamped {
		t.Fatalf("two builds with SOURCE_DATE_EPOCH: %s then %s", stamped, again)
	}
	want := time.Unix(1700000000, 0).UTC()
	m, _ := sidx.IndexManifest()
	for _, d := range m.Manifests {
		img, _ := sidx.Image(d.Digest)
		cf, _ := img.ConfigFile()
		if !cf.Created.Time.Equal(want) {
			t.Errorf("%s: created %s, want SOURCE_DATE_EPOCH's %s", d.Platform, cf.Created.Time, want)
		}
		layers, _ := img.Layers()
		for _, l := range layers[1:] {
			for name, h := range layerFiles(t, l) {
				if !h.ModTime.Equal(want) {
					t.Fatalf("%s: %s has time %s, want %s", d.Platform, name, h.ModTime, want)
				}
			}
		}
	}
	// A converted input (an index.db, written to a new temporary directory each run) too, on
	// opm's base.
	opm := imagetest.OCILayoutIndex(t, opmBase(t, "linux/amd64", "linux/arm64"))
	var fromDB []string
	for range 2 {
		out := filepath.Join(t.TempDir(), "image")
		fromDB = append(fromDB, mustRun(t, "build", "../../fixtures/index.db", "--to-image", "oci-layout:"+out, "--base", opm, "--platform", "all"))
	}
	if fromDB[0] != fromDB[1] {
		t.Errorf("two builds of an index.db on opm's base: %s then %s", fromDB[0], fromDB[1])
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if code, _, stderr := runCLI(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+filepath.Join(t.TempDir(), "x"), "--base", base); code != 2 || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") {
		t.Errorf("a SOURCE_DATE_EPOCH that is no number: exit %d, %s", code, stderr)
	}
}

// An index.db is converted to FBC first, and pushed to a registry as an index; the pushed index
// is the one printed.
func TestBuildIndexDBToRegistry(t *testing.T) {
	host := imagetest.Registry(t)
	baseRef := host + "/olmcat/base:latest"
	baseIdx := imagetest.BaseIndex(t, "bin/olmcat", []string{"/bin/olmcat"}, []string{"serve"}, "linux/amd64", "linux/s390x")
	imagetest.PushIndex(t, baseRef, baseIdx)
	dest := host + "/catalog/index:v1"
	stdout := mustRun(t, "build", "../../fixtures/index.db", "--to-image", dest, "--base", baseRef, "--platform", "linux/s390x,linux/amd64")
	ref, err := name.ParseReference(dest)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); d.String() != strings.TrimSpace(stdout) {
		t.Fatalf("pushed %s, printed %s", d, stdout)
	}
	checkBuiltIndex(t, idx, baseIdx, []string{"linux/s390x", "linux/amd64"}, "/bin/olmcat")
}

// One platform into a docker archive: the image of that platform, not an index.
func TestBuildDockerArchiveOnePlatform(t *testing.T) {
	base := olmcatBase(t, fourPlatforms...)
	file := filepath.Join(t.TempDir(), "catalog.tar")
	stdout := mustRun(t, "build", "../../fixtures/catalog", "--to-image", "docker-archive:"+file, "--base", base, "--platform", "linux/ppc64le")
	img, err := tarball.ImageFromPath(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := img.ConfigName(); id.String() != strings.TrimSpace(stdout) {
		t.Errorf("archive image ID %s, printed %s", id, stdout)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Architecture != "ppc64le" || cf.Config.Labels[indeximage.ConfigsLabel] != "/configs" || !slices.Equal(cf.Config.Entrypoint, []string{"/bin/olmcat"}) {
		t.Errorf("archive image: arch %s, labels %v, entrypoint %v", cf.Architecture, cf.Config.Labels, cf.Config.Entrypoint)
	}
}

// What build refuses, before anything is written: exit 2 with a sentence that says why.
func TestBuildRefusals(t *testing.T) {
	olmcatLayout := olmcatBase(t, "linux/amd64", "linux/arm64")
	odd := imagetest.OCILayoutIndex(t, imagetest.BaseIndex(t, "bin/sh", []string{"/bin/sh", "-c"}, []string{"sleep 1"}, "linux/amd64"))
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"platform the base lacks", []string{"--base", olmcatLayout, "--platform", "linux/amd64,linux/s390x", "--to-image", "oci-layout:" + out},
			[]string{"has no linux/s390x image", "its platforms: linux/amd64, linux/arm64"}},
		{"several platforms into a docker archive", []string{"--base", olmcatLayout, "--platform", "linux/amd64,linux/arm64", "--to-image", "docker-archive:" + out},
			[]string{"a docker archive holds one platform's image"}},
		{"all into a docker archive", []string{"--base", olmcatLayout, "--platform", "all", "--to-image", "docker-archive:" + out},
			[]string{"a docker archive holds one platform's image"}},
		{"a base that is neither opm's nor olmcat's", []string{"--base", odd, "--to-image", "oci-layout:" + out},
			[]string{`entrypoint is ["/bin/sh" "-c"]`, "build knows opm's base"}},
		{"--server that disagrees with the base", []string{"--base", olmcatLayout, "--server", "opm", "--to-image", "oci-layout:" + out},
			[]string{"--server opm, but --base", "is olmcat's base"}},
		{"olmcat for several platforms without a base", []string{"--server", "olmcat", "--platform", "linux/amd64,linux/arm64", "--to-image", "oci-layout:" + out},
			[]string{"needs --base", "make image"}},
		{"no --to-image", []string{"--base", olmcatLayout}, []string{"give --to-image"}},
		{"bad platform", []string{"--base", olmcatLayout, "--platform", "amd64", "--to-image", "oci-layout:" + out}, []string{"want OS/ARCH"}},
		{"output inside the input", []string{"--base", olmcatLayout, "--to-image", "oci-layout:../../fixtures/catalog/image"}, []string{"lies inside the input"}},
		{"output over the base", []string{"--base", olmcatLayout, "--to-image", olmcatLayout, "--force"}, []string{"the input " + olmcatLayout}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"build", "../../fixtures/catalog"}, c.args...)...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// On opm's base (a multi-arch index in a registry), every platform's image gets opm's serve
// cache: the files opmcache writes for the catalog, as 'opm serve --cache-only' would, byte for
// byte the same in every platform's image.
func TestBuildOnOPMBase(t *testing.T) {
	host := imagetest.Registry(t)
	baseRef := host + "/operator-framework/opm:v1.50.0"
	baseIdx := opmBase(t, fourPlatforms...)
	imagetest.PushIndex(t, baseRef, baseIdx)
	out := filepath.Join(t.TempDir(), "image")
	stdout := mustRun(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+out+":v1", "--base", baseRef, "--platform", "all")
	idx := builtIndex(t, out)
	if d, _ := idx.Digest(); d.String() != strings.TrimSpace(stdout) {
		t.Fatalf("wrote %s, printed %s", d, stdout)
	}
	checkBuiltIndex(t, idx, baseIdx, fourPlatforms, "/bin/opm")

	checkOPMCacheIntegrity(t, idx)

	// A catalog whose files the umask left group-writable or private gives the same image: the
	// digest is computed over the modes the layer gives them.
	odd := filepath.Join(t.TempDir(), "catalog")
	copyDir(t, "../../fixtures/catalog", odd)
	if err := os.Chmod(filepath.Join(odd, "operator-000"), 0o700); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(odd, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chmod(p, 0o664)
		}
		return err
	})
	oddOut := filepath.Join(t.TempDir(), "image")
	oddDigest := mustRun(t, "build", odd, "--to-image", "oci-layout:"+oddOut+":v1", "--base", baseRef, "--platform", "all")
	checkOPMCacheIntegrity(t, builtIndex(t, oddOut))
	if oddDigest != stdout {
		t.Errorf("the same catalog with other modes: %s, was %s", oddDigest, stdout)
	}

	// --server opm agrees with the base; --server olmcat does not.
	if code, _, stderr := runCLI(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+filepath.Join(t.TempDir(), "x"), "--base", baseRef, "--server", "olmcat"); code != 2 || !strings.Contains(stderr, "is opm's base") {
		t.Errorf("--server olmcat on opm's base: exit %d, %s", code, stderr)
	}
}

// --platform linux/arm64 finds the base's linux/arm64/v8 image, and the index records the
// platform as the base does; naming it twice is refused.
func TestBuildPlatformVariant(t *testing.T) {
	base := olmcatBase(t, "linux/amd64", "linux/arm64/v8", "linux/arm/v7")
	out := filepath.Join(t.TempDir(), "image")
	mustRun(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+out, "--base", base, "--platform", "linux/arm64,linux/arm/v7")
	m, err := builtIndex(t, out).IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range m.Manifests {
		got = append(got, d.Platform.String())
	}
	if !slices.Equal(got, []string{"linux/arm64/v8", "linux/arm/v7"}) {
		t.Errorf("index platforms %v, want the base's linux/arm64/v8 and linux/arm/v7", got)
	}
	code, _, stderr := runCLI(t, "build", "../../fixtures/catalog", "--to-image", "oci-layout:"+filepath.Join(t.TempDir(), "x"), "--base", base, "--platform", "linux/arm64,linux/arm64/v8")
	if code != 2 || !strings.Contains(stderr, "names the base's linux/arm64/v8 twice") {
		t.Errorf("the same platform twice: exit %d, %s", code, stderr)
	}
}

// extractLayerModes writes a layer's directories and files under root with the permission bits
// the layer gives them (no whiteouts, links or owners: build's layers hold none that matter here).
func extractLayerModes(t *testing.T, l v1.Layer, root string) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(p, os.FileMode(h.Mode).Perm()) // after its files are written
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chmod(p, os.FileMode(h.Mode).Perm()); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkOPMCacheIntegrity checks what opm checks at start (--cache-enforce-integrity) in every
// platform's image: the digest of /configs and /tmp/cache/cache as the image holds them,
// permission bits included, is the one the cache records; and the cache belongs to the base's
// USER (1001), as RUN opm serve --cache-only leaves it.
func checkOPMCacheIntegrity(t *testing.T, idx v1.ImageIndex) {
	t.Helper()
	m, _ := idx.IndexManifest()
	for _, d := range m.Manifests {
		img, _ := idx.Image(d.Digest)
		layers, _ := img.Layers()
		root := t.TempDir()
		for _, l := range layers[1:] {
			extractLayerModes(t, l, root)
		}
		for name, h := range layerFiles(t, layers[2]) {
			if strings.HasPrefix(name, "tmp/cache") && (h.Uid != 1001 || h.Gid != 0) {
				t.Fatalf("%s: %s is owned by %d:%d, not the base's USER 1001", d.Platform, name, h.Uid, h.Gid)
			}
		}
		recorded, err := os.ReadFile(filepath.Join(root, "tmp/cache/digest"))
		if err != nil {
			t.Fatalf("%s: %v", d.Platform, err)
		}
		got, err := opmcache.Digest(filepath.Join(root, "configs"), filepath.Join(root, "tmp/cache"))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(recorded) {
			t.Errorf("%s: opm would compute %s over the image's /configs and cache, the cache records %s: --cache-enforce-integrity would refuse it", d.Platform, got, recorded)
		}
	}
}

// A catalog image is read from the platform built, or from its linux/amd64 image when it has no
// such platform (the catalog is the same in every one).
func TestBuildFromCatalogImageOtherPlatform(t *testing.T) {
	catalog := imagetest.FBCImage(t, "../../fixtures/catalog")
	amd64Only := imagetest.OCILayoutIndex(t, mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: catalog, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}}))
	base := olmcatBase(t, "linux/s390x")
	out := filepath.Join(t.TempDir(), "image")
	mustRun(t, "build", amd64Only, "--to-image", "oci-layout:"+out, "--base", base, "--platform", "linux/s390x")
	m, _ := builtIndex(t, out).IndexManifest()
	if len(m.Manifests) != 1 || m.Manifests[0].Platform.String() != "linux/s390x" {
		t.Fatalf("index %+v", m.Manifests)
	}
}
