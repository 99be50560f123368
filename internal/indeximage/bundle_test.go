package indeximage

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc/bundledir"
)

func conformanceBundles(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "bundles", "*", "bundle"))
	if len(dirs) == 0 {
		t.Skipf("conformance bundles absent under %s/bundles; these tests need /work/shared beside the repo", conformanceDir)
	}
	return dirs
}

// annotationLabels reads a bundle directory's annotations, which a bundle image carries as labels.
func annotationLabels(t testing.TB, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "metadata", "annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Annotations map[string]string }
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Annotations
}

// bundleImageOf builds the image a bundle.Dockerfile builds: FROM scratch, COPY manifests, COPY
// metadata (one layer each), LABELs from annotations.yaml.
func bundleImageOf(t testing.TB, dir string) v1.Image {
	t.Helper()
	return imageWith(t, annotationLabels(t, dir), amd64,
		layerFromDir(t, filepath.Join(dir, "manifests"), "manifests"),
		layerFromDir(t, filepath.Join(dir, "metadata"), "metadata"))
}

// bundleTree is what a bundle image holds of a bundle directory: manifests/ and metadata/.
func bundleTree(t testing.TB, dir string) map[string]string {
	tree := treeOf(t, os.DirFS(dir))
	for k := range tree {
		if top, _, _ := strings.Cut(k, "/"); top != "manifests" && top != "metadata" {
			delete(tree, k)
		}
	}
	return tree
}

func fetchBundle(t testing.TB, ref string, opts Options) (*Bundle, error) {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	opts.fastRetries = true
	b, err := FetchBundle(context.Background(), ref, opts)
	if err == nil {
		t.Cleanup(b.Cleanup)
	}
	return b, err
}

// bundleRefs writes img to a registry, an OCI layout and a docker archive.
func bundleRefs(t *testing.T, host string, img v1.Image) []string {
	t.Helper()
	reg := host + "/ns/bundle:v1"
	push(t, reg, img)
	lp, err := layout.Write(t.TempDir(), empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "bundle.tar")
	tag, _ := name.NewTag("quay.io/ns/bundle:v1")
	if err := tarball.WriteToFile(archive, tag, img); err != nil {
		t.Fatal(err)
	}
	return []string{reg, OCILayoutPrefix + string(lp), DockerArchivePrefix + archive}
}

// TestFetchBundleFromEveryTransport extracts every conformance bundle from a registry, an OCI
// layout and a docker archive: the extracted tree is the bundle directory, file for file.
func TestFetchBundleFromEveryTransport(t *testing.T) {
	host := startRegistry(t, nil)
	for _, dir := range conformanceBundles(t) {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			img := bundleImageOf(t, dir)
			want := bundleTree(t, dir)
			for _, ref := range bundleRefs(t, host, img) {
				b, err := fetchBundle(t, ref, Options{})
				if err != nil {
					t.Fatalf("%s: %v", ref, err)
				}
				if d := cmp.Diff(want, treeOf(t, writtenOut(t, b))); d != "" {
					t.Errorf("%s: extracted tree differs from the bundle directory (-want +got):\n%s", ref, d)
				}
				if b.Ref != ref || b.ManifestsPath != "/manifests" || b.MetadataPath != "/metadata" || b.LayersRead != 2 {
					t.Errorf("%s: got ref %q, paths %s %s, %d layers read", ref, b.Ref, b.ManifestsPath, b.MetadataPath, b.LayersRead)
				}
				if b.Labels[BundlePackageLabel] == "" {
					t.Errorf("%s: labels not kept: %v", ref, b.Labels)
				}
			}
		})
	}
}

// TestFetchOfBundleImageHandsOverTheBundle: Fetch refuses a bundle image as a catalog, and its
// error extracts the bundle from the image already resolved.
func TestFetchOfBundleImageHandsOverTheBundle(t *testing.T) {
	dir := conformanceBundles(t)[0]
	host := startRegistry(t, nil)
	for _, ref := range bundleRefs(t, host, bundleImageOf(t, dir)) {
		_, err := fetch(t, ref, Options{})
		var notIndex *NotIndexError
		if !errors.As(err, &notIndex) || !notIndex.IsBundle() {
			t.Fatalf("%s: got %v, want a NotIndexError for a bundle image", ref, err)
		}
		wantErr(t, err, "not an OLM index image", "operator bundle image")
		b, err := notIndex.Bundle(context.Background(), Options{TempDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		t.Cleanup(b.Cleanup)
		if b.Ref != ref {
			t.Errorf("Ref %q, want %q", b.Ref, ref)
		}
		if d := cmp.Diff(bundleTree(t, dir), treeOf(t, writtenOut(t, b))); d != "" {
			t.Errorf("%s: (-want +got):\n%s", ref, d)
		}
	}
}

func TestFetchBundleFollowsLabelsAndWhiteouts(t *testing.T) {
	labels := map[string]string{BundlePackageLabel: "demo", BundleManifestsLabel: "bundle/m/", BundleMetadataLabel: "/bundle/md"}
	img := imageWith(t, labels, amd64,
		layerOf(t, dir("bundle"), dir("bundle/m"), file("bundle/m/csv.yaml", "old"), file("bundle/m/gone.yaml", "x"),
			dir("bundle/md"), file("bundle/md/annotations.yaml", "a"), dir("manifests"), file("manifests/decoy.yaml", "no")),
		layerOf(t, dir("bundle/m"), file("bundle/m/csv.yaml", "new"), file("bundle/m/.wh.gone.yaml", ""),
			dir("bundle/md"), file("bundle/md/.wh..wh..opq", ""), file("bundle/md/annotations.yaml", "b")))
	host := startRegistry(t, nil)
	b, err := fetchBundle(t, bundleRefs(t, host, img)[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"manifests": "/", "manifests/csv.yaml": "new", "metadata": "/", "metadata/annotations.yaml": "b"}
	if d := cmp.Diff(want, treeOf(t, writtenOut(t, b))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if b.ManifestsPath != "/bundle/m" || b.MetadataPath != "/bundle/md" {
		t.Errorf("paths %s, %s", b.ManifestsPath, b.MetadataPath)
	}
}

// TestFetchBundleRefusesHostileImages: the protections of index images hold for bundle images.
func TestFetchBundleRefusesHostileImages(t *testing.T) {
	labels := map[string]string{BundlePackageLabel: "demo"}
	meta := []tarEntry{dir("metadata"), file("metadata/annotations.yaml", "annotations: {}\n")}
	zeros := strings.Repeat("\x00", 2<<20)
	for _, c := range []struct {
		name    string
		entries []tarEntry
		limits  Limits
		want    []string
	}{
		{"dotdot", []tarEntry{dir("manifests"), file("manifests/../../etc/evil", "x")}, Limits{}, []string{"unsafe layer entry", `".."`}},
		{"absolute", []tarEntry{file("/manifests/csv.yaml", "x")}, Limits{}, []string{"unsafe layer entry", "absolute"}},
		{"symlink out", []tarEntry{dir("manifests"), symlink("manifests/csv.yaml", "/etc/passwd")}, Limits{}, []string{"points outside the bundle path /manifests"}},
		{"symlink to metadata", []tarEntry{dir("manifests"), symlink("manifests/a.yaml", "../metadata/annotations.yaml")}, Limits{}, []string{"points outside the bundle path /manifests"}},
		{"hard link out", []tarEntry{dir("manifests"), hardlink("manifests/csv.yaml", "etc/passwd")}, Limits{}, []string{"hard link", "outside the bundle path /manifests"}},
		{"symlinked dir", []tarEntry{symlink("manifests", "/etc")}, Limits{}, []string{"bundle path /manifests is a symlink"}},
		{"device", []tarEntry{dir("manifests"), special("manifests/null", '3')}, Limits{}, []string{"device or fifo"}},
		{"bytes bomb", []tarEntry{dir("manifests"), file("manifests/bomb.yaml", zeros)}, Limits{MaxBytes: 1 << 20}, []string{"OLMCAT_MAX_INPUT_BYTES", "decompression bomb"}},
		{"scanned bomb", []tarEntry{file("junk", zeros), dir("manifests")}, Limits{MaxScannedBytes: 1 << 20}, []string{"OLMCAT_MAX_SCANNED_BYTES"}},
		{"many files", []tarEntry{dir("manifests"), file("manifests/a", ""), file("manifests/b", ""), file("manifests/c", "")}, Limits{MaxFiles: 2}, []string{"OLMCAT_MAX_INPUT_FILES"}},
		{"no manifests", nil, Limits{}, []string{"no layer holds /manifests", "not a complete operator bundle"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := imageWith(t, labels, amd64, layerOf(t, meta...), layerOf(t, c.entries...))
			_, err := extractBundleT(t, img, Options{Limits: c.limits})
			wantErr(t, err, c.want...)
		})
	}
}

func extractBundleT(t testing.TB, img v1.Image, opts Options) (*Bundle, error) {
	t.Helper()
	opts.TempDir = t.TempDir()
	b, err := ExtractBundle(context.Background(), img, opts)
	if err == nil {
		t.Cleanup(b.Cleanup)
		return b, nil
	}
	if left, _ := os.ReadDir(opts.TempDir); len(left) > 0 {
		t.Errorf("a refused bundle left %d entries in the temporary directory", len(left))
	}
	return nil, err
}

func TestFetchBundleRefusesImagesThatAreNotBundles(t *testing.T) {
	host := startRegistry(t, nil)
	push(t, host+"/ns/plain:1", imageWith(t, map[string]string{"maintainer": "me"}, amd64, baseLayer(t)))
	_, err := fetchBundle(t, host+"/ns/plain:1", Options{})
	wantErr(t, err, "neither an operator bundle image", BundlePackageLabel, "Its labels: maintainer")

	push(t, host+"/ns/nolabels:1", imageWith(t, nil, amd64, baseLayer(t)))
	_, err = fetchBundle(t, host+"/ns/nolabels:1", Options{})
	wantErr(t, err, "neither an operator bundle image", "It has no labels")

	// An index image that also carries bundle labels is a catalog, as opm reads it.
	push(t, host+"/ns/index:1", imageWith(t, map[string]string{ConfigsLabel: "/configs", BundlePackageLabel: "x"}, amd64, baseLayer(t)))
	_, err = fetchBundle(t, host+"/ns/index:1", Options{})
	wantErr(t, err, "is an OLM index image", ConfigsLabel, "not an operator bundle image")

	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{BundlePackageLabel: "x", BundleManifestsLabel: "/"}, "does not name a directory"},
		{map[string]string{BundlePackageLabel: "x", BundleManifestsLabel: "/b", BundleMetadataLabel: "/b/metadata"}, "one directory tree"},
		{map[string]string{BundlePackageLabel: "x", BundleMetadataLabel: "manifests/"}, "one directory tree"},
	} {
		_, err := extractBundleT(t, imageWith(t, c.labels, amd64, baseLayer(t)), Options{})
		wantErr(t, err, c.want)
	}
}

func TestLabelsOfEveryTransport(t *testing.T) {
	img := imageWith(t, map[string]string{BundlePackageLabel: "demo"}, amd64, baseLayer(t))
	for _, ref := range bundleRefs(t, startRegistry(t, nil), img) {
		labels, err := Labels(context.Background(), ref, Options{fastRetries: true})
		if err != nil || labels[BundlePackageLabel] != "demo" {
			t.Errorf("%s: got %v, %v", ref, labels, err)
		}
	}
}

// writtenOut writes b out (WriteDir) and gives its directory.
func writtenOut(t *testing.T, b *Bundle) fs.FS {
	t.Helper()
	if err := b.WriteDir(); err != nil {
		t.Fatal(err)
	}
	return os.DirFS(b.Dir)
}

// The trees of an extracted bundle parse and render to the very bytes of the bundle directory
// the image was built from, with nothing written out.
func TestExtractedBundleParsesInMemoryAsItsDirectory(t *testing.T) {
	for _, dir := range conformanceBundles(t) {
		want, err := renderedJSON(bundledir.Parse(dir))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		b, err := ExtractBundle(context.Background(), bundleImageOf(t, dir), Options{TempDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		got, err := renderedJSON(bundledir.ParseFS(dir, b.Manifests, b.Metadata))
		if entries, _ := os.ReadDir(b.Dir); len(entries) != 0 {
			t.Errorf("%s: %d entries written to %s, want none", dir, len(entries), b.Dir)
		}
		b.Cleanup()
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if d := cmp.Diff(string(want), string(got)); d != "" {
			t.Errorf("%s: (-directory +in memory):\n%s", dir, d)
		}
	}
}

func renderedJSON(b *bundledir.Bundle, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	r, err := b.Render("")
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}
