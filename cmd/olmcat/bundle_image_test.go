package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/imagetest"
)

// conformanceBundleDirs lists the real bundle directories of the corpus, each with opm's render.
func conformanceBundleDirs(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(conformance, "bundles", "*", "bundle"))
	if len(dirs) == 0 {
		t.Skipf("conformance bundles absent under %s/bundles: these tests need /work/shared beside the repo", conformance)
	}
	return dirs
}

// bundleImageRefs writes the bundle image of dir to a registry (by tag and by digest), an OCI
// layout and a docker archive, and returns the references.
func bundleImageRefs(t *testing.T, host, dir string) []string {
	t.Helper()
	img := imagetest.BundleImage(t, dir)
	tagged := host + "/ns/" + filepath.Base(filepath.Dir(dir)) + "-bundle:v1"
	imagetest.Push(t, tagged, img)
	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	byDigest := strings.TrimSuffix(tagged, ":v1") + "@" + digest.String()
	return []string{tagged, byDigest, imagetest.OCILayout(t, img), imagetest.DockerArchive(t, img)}
}

// opmRenderWithImage is what opm renders for the bundle of render.json when it is pulled as image:
// the same blob with image set to the reference as given, which also becomes a related image
// (unless the CSV lists it already), related images sorted by image.
func opmRenderWithImage(t *testing.T, renderJSON []byte, image string) string {
	t.Helper()
	var b fbc.Bundle
	if err := json.Unmarshal(renderJSON, &b); err != nil {
		t.Fatal(err)
	}
	var same bytes.Buffer
	if err := fbc.Write(&same, &fbc.Catalog{Bundles: []fbc.Bundle{b}}, fbc.JSON); err != nil || !bytes.Equal(same.Bytes(), renderJSON) {
		t.Fatalf("render.json does not survive decoding and writing (%v): the expectation cannot be built from it", err)
	}
	b.Image = image
	if !slices.ContainsFunc(b.RelatedImages, func(r fbc.RelatedImage) bool { return r.Image == image }) {
		b.RelatedImages = append(b.RelatedImages, fbc.RelatedImage{Image: image})
	}
	slices.SortStableFunc(b.RelatedImages, func(x, y fbc.RelatedImage) int { return cmp.Compare(x.Image, y.Image) })
	var out bytes.Buffer
	if err := fbc.Write(&out, &fbc.Catalog{Bundles: []fbc.Bundle{b}}, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestRenderBundleImagesMatchOpm: every conformance bundle, built into an image and read from a
// registry (tag and digest), an OCI layout and a docker archive, renders as opm rendered its
// directory (render.json) with the image field set to the reference, through render, bundle
// render and render bundle.
func TestRenderBundleImagesMatchOpm(t *testing.T) {
	host := imagetest.Registry(t)
	for _, dir := range conformanceBundleDirs(t) {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			renderJSON, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "render.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range bundleImageRefs(t, host, dir) {
				want := opmRenderWithImage(t, renderJSON, ref)
				for _, args := range [][]string{{"render", ref}, {"bundle", "render", ref}, {"render", "bundle", ref}} {
					code, stdout, stderr := runCLI(t, args...)
					if code != 0 {
						t.Fatalf("olmcat %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
					}
					if stdout != want {
						t.Errorf("olmcat %s differs from opm's render with the image set:\n%s", strings.Join(args, " "), diffJSONText(stdout, want))
					}
				}
			}
		})
	}
}

func diffJSONText(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return "first difference at line " + itoa(i+1) + ":\n  got:  " + g[i] + "\n  want: " + w[i]
		}
	}
	return "lengths differ: got " + itoa(len(g)) + " lines, want " + itoa(len(w))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRenderMixesCatalogsAndBundleImages: render takes catalogs and bundle images together.
func TestRenderMixesCatalogsAndBundleImages(t *testing.T) {
	dir := conformanceBundleDirs(t)[0]
	ref := bundleImageRefs(t, imagetest.Registry(t), dir)[2]
	code, stdout, stderr := runCLI(t, "render", "../../fixtures/catalog", ref, "-o", "yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	alone := mustRun(t, "render", "../../fixtures/catalog", "-o", "yaml")
	if !strings.Contains(stdout, "image: "+ref) || len(stdout) <= len(alone) {
		t.Errorf("the bundle of %s is not in the rendered stream", ref)
	}
}

// TestRenderBundleImageMigrateLevel: with --migrate-level bundle-object-to-csv-metadata, a bundle
// image renders as opm migrated the same bundle added to an index.db with an image
// (sqlite/kube-green-replaces, kube-green v0.7.1), the image name aside.
func TestRenderBundleImageMigrateLevel(t *testing.T) {
	dir := filepath.Join(conformance, "bundles", "kube-green-0.7.1", "bundle")
	migrated := filepath.Join(conformance, "sqlite", "kube-green-replaces", "migrate-csvmeta", "kube-green", "catalog.json")
	data, err := os.ReadFile(migrated)
	if err != nil {
		t.Skipf("conformance case absent: %v", err)
	}
	c, err := fbc.LoadReader(bytes.NewReader(data), migrated)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(c.Bundles, func(b fbc.Bundle) bool { return b.Name == "kube-green.v0.7.1" })
	if i < 0 {
		t.Fatal("kube-green.v0.7.1 not in the migrated catalog")
	}
	want := c.Bundles[i]
	ref := bundleImageRefs(t, imagetest.Registry(t), dir)[0]
	out := mustRun(t, "render", ref, "--migrate-level", "bundle-object-to-csv-metadata")
	out = strings.ReplaceAll(out, ref, want.Image)
	got, err := fbc.LoadReader(strings.NewReader(out), "render output")
	if err != nil || len(got.Bundles) != 1 {
		t.Fatalf("render output: %v", err)
	}
	for _, b := range []*fbc.Bundle{&want, &got.Bundles[0]} {
		slices.SortStableFunc(b.RelatedImages, func(x, y fbc.RelatedImage) int { return cmp.Compare(x.Image, y.Image) })
	}
	var g, w bytes.Buffer
	fbc.Write(&g, &fbc.Catalog{Bundles: got.Bundles}, fbc.JSON)
	fbc.Write(&w, &fbc.Catalog{Bundles: []fbc.Bundle{want}}, fbc.JSON)
	if g.String() != w.String() || !strings.Contains(g.String(), "olm.csv.metadata") {
		t.Errorf("csv-metadata render differs from opm's migrate:\n%s", diffJSONText(g.String(), w.String()))
	}
}
