package indeximage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// withHistory replaces img's history, as tools other than docker leave it (none, partial...).
func withHistory(t testing.TB, img v1.Image, history []v1.History) v1.Image {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.History = history
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// randomLayer is a base layer; unlike layerOf's, its in-memory descriptor matches the manifest
// written, so that validate.Image checks the built image and not a quirk of the fixture.
func randomLayer(t testing.TB) v1.Layer {
	t.Helper()
	l, err := random.Layer(64, types.OCILayer)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fakeDatabaseLayer(t testing.TB) v1.Layer {
	return layerOf(t, dir("database"), file("database/index.db", "SQLite format 3\x00"))
}

// smallCatalog is a configs directory to build images with.
func smallCatalog(t testing.TB) string {
	d := t.TempDir()
	if err := os.MkdirAll(filepath.Join(d, "foo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "foo", "catalog.json"), []byte(`{"schema":"olm.package","name":"foo"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// checkBuiltImage asserts what runtimes and registries expect of a built image: the
// manifest, config and layers agree (validate.Image), the history, when present, has exactly
// one non-empty_layer entry per layer, and the catalog reads back.
func checkBuiltImage(t *testing.T, img v1.Image, catalog string) []v1.History {
	t.Helper()
	if err := validate.Image(img); err != nil {
		t.Fatalf("validate.Image: %v", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for _, h := range cf.History {
		if !h.EmptyLayer {
			nonEmpty++
		}
	}
	if len(cf.History) > 0 && nonEmpty != len(layers) {
		t.Fatalf("history has %d non-empty entries for %d layers: %+v", nonEmpty, len(layers), cf.History)
	}
	cat, err := extractImage(t, img, Options{})
	if err != nil {
		t.Fatalf("read the built image back: %v", err)
	}
	if diff := cmp.Diff(treeOf(t, os.DirFS(catalog)), treeOf(t, cat.Files)); cat.Kind != FBC || diff != "" {
		t.Fatalf("catalog read back as %v (-want +got):\n%s", cat.Kind, diff)
	}
	return cf.History
}

func historyCreatedBy(history []v1.History) []string {
	var out []string
	for _, h := range history {
		if h.CreatedBy == "" {
			h.CreatedBy = "# " + h.Comment
		}
		out = append(out, h.CreatedBy)
	}
	return out
}

func TestBuildOnBaseWhoseHistoryDoesNotMatchItsLayers(t *testing.T) {
	catalog := smallCatalog(t)
	synthesized := []string{"# " + baseHistoryComment, "olmcat: ADD catalog /configs"}
	entry := func(by string, empty bool) v1.History { return v1.History{CreatedBy: by, EmptyLayer: empty} }
	for _, c := range []struct {
		name    string
		history []v1.History
		want    []string // CreatedBy of the built image's history
	}{
		{"none", nil, synthesized},
		{"fewer entries than layers", []v1.History{entry("ADD base", false)}, synthesized},
		{"only empty-layer entries", []v1.History{entry("ENV A=1", true), entry("LABEL x", true)}, synthesized},
		{"more entries than layers", []v1.History{entry("ADD a", false), entry("ADD b", false), entry("ADD c", false)}, synthesized},
		{"lined up", []v1.History{entry("ENV A=1", true), entry("ADD base", false), entry("LABEL db", true), entry("ADD index.db", false), entry("CMD serve", true)},
			[]string{"ENV A=1", "ADD base", "LABEL db", "CMD serve", "olmcat: ADD catalog /configs"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := imageWith(t, map[string]string{DatabaseLabel: "/database/index.db"}, amd64, randomLayer(t), fakeDatabaseLayer(t))
			base = withHistory(t, base, c.history)
			img, err := BuildFBCImage(base, catalog, BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			history := checkBuiltImage(t, img, catalog)
			if got := historyCreatedBy(history); !cmp.Equal(got, c.want) {
				t.Errorf("history %q, want %q", got, c.want)
			}
		})
	}
}

// The base of `olmcat migrate oci-layout:IMG OUT --oci-layout NEW` (or docker-archive:) is the
// image as read back by Fetch, and the result is written and read again; ko, buildah
// --omit-history and crane leave no history at all.
func TestBuildOnLocalImageWithoutHistory(t *testing.T) {
	catalog := smallCatalog(t)
	rnd, err := random.Image(64, 2)
	if err != nil {
		t.Fatal(err)
	}
	rndLayers, err := rnd.Layers()
	if err != nil {
		t.Fatal(err)
	}
	base := imageWith(t, map[string]string{DatabaseLabel: "/database/index.db"}, amd64, append(rndLayers, fakeDatabaseLayer(t))...)
	base = withHistory(t, base, nil)
	for _, src := range []string{"oci-layout:" + filepath.Join(t.TempDir(), "src"), "docker-archive:" + filepath.Join(t.TempDir(), "src.tar")} {
		if _, err := WriteImage(context.Background(), base, src, false, Options{}); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		cat, err := fetch(t, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		img, err := BuildFBCImage(cat.Image, catalog, BuildOptions{DatabaseLayers: cat.DatabaseLayers})
		if err != nil {
			t.Fatalf("build on %s: %v", src, err)
		}
		checkBuiltImage(t, img, catalog)
		if layers, _ := img.Layers(); len(layers) != 3 {
			t.Errorf("%s: %d layers, want the 2 base layers and the configs layer", src, len(layers))
		}
		for _, dest := range []string{"oci-layout:" + filepath.Join(t.TempDir(), "new"), "docker-archive:" + filepath.Join(t.TempDir(), "new.tar")} {
			if _, err := WriteImage(context.Background(), img, dest, false, Options{}); err != nil {
				t.Fatalf("%s: %v", dest, err)
			}
			back, err := fetch(t, dest, Options{})
			if err != nil {
				t.Fatalf("%s: %v", dest, err)
			}
			checkBuiltImage(t, back.Image, catalog)
		}
	}
}

func TestBuildFBCIndexOnImagesWithoutHistory(t *testing.T) {
	catalog := smallCatalog(t)
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	labels := map[string]string{DatabaseLabel: "/database/index.db"}
	noHistory := withHistory(t, imageWith(t, labels, amd64, randomLayer(t), fakeDatabaseLayer(t)), nil)
	partial := withHistory(t, imageWith(t, labels, arm, randomLayer(t), fakeDatabaseLayer(t)), []v1.History{{CreatedBy: "ADD base"}})
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: noHistory, Descriptor: v1.Descriptor{Platform: &amd64}},
		mutate.IndexAddendum{Add: partial, Descriptor: v1.Descriptor{Platform: &arm}})
	built, err := BuildFBCIndex(idx, catalog, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Index(built); err != nil {
		t.Fatalf("validate.Index: %v", err)
	}
	im, err := built.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 {
		t.Fatalf("%d manifests, want 2", len(im.Manifests))
	}
	for _, d := range im.Manifests {
		img, err := built.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s", d.Platform, mt)
		}
		history := checkBuiltImage(t, img, catalog)
		if last := history[len(history)-1].CreatedBy; !strings.Contains(last, "ADD catalog") {
			t.Errorf("%s: last history entry %q", d.Platform, last)
		}
	}
}
