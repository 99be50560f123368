package indeximage

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// rawLayout writes an OCI layout holding one image made of the given config bytes and layers
// (tar streams, gzipped here, with the manifest media types given): what odd tools or hand
// edits produce.
func rawLayout(t *testing.T, config string, layers map[types.MediaType][]byte, order ...types.MediaType) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "layout")
	lp, err := layout.Write(d, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	put := func(b []byte) v1.Descriptor {
		h, n, err := v1.SHA256(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := lp.WriteBlob(h, io.NopCloser(bytes.NewReader(b))); err != nil {
			t.Fatal(err)
		}
		return v1.Descriptor{Digest: h, Size: n}
	}
	m := v1.Manifest{SchemaVersion: 2, MediaType: types.OCIManifestSchema1, Config: put([]byte(config))}
	m.Config.MediaType = types.OCIConfigJSON
	for _, mt := range order {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(layers[mt])
		zw.Close()
		desc := put(gz.Bytes())
		desc.MediaType = mt
		m.Layers = append(m.Layers, desc)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	desc := put(raw)
	desc.MediaType = types.OCIManifestSchema1
	if err := lp.AppendDescriptor(desc); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestOddImagesGiveErrorsNotPanics(t *testing.T) {
	dbTar := tarBytes(t, dir("database"), file("database/index.db", "SQLite format 3\x00"))
	dbHash, _, _ := v1.SHA256(bytes.NewReader(dbTar))
	dbLabel := `"config":{"Labels":{"` + DatabaseLabel + `":"/database/index.db"}}`
	rootfs := `"rootfs":{"type":"layers","diff_ids":["` + dbHash.String() + `"]}`
	layers := map[types.MediaType][]byte{types.OCILayer: dbTar, "application/vnd.example.blob": dbTar}
	for _, c := range []struct {
		name, config string
		layers       []types.MediaType
		fetchErr     []string // "" parts: Fetch must fail mentioning them
		buildErr     []string // nil: the build must succeed and give a valid image
	}{
		{"null config", `null`, []types.MediaType{types.OCILayer}, []string{"not an OLM index image"}, nil},
		{"no config section", `{` + rootfs + `}`, []types.MediaType{types.OCILayer}, []string{"not an OLM index image"}, nil},
		{"no history", `{` + dbLabel + `,` + rootfs + `}`, []types.MediaType{types.OCILayer}, nil, nil},
		{"zero layers", `{` + dbLabel + `,"rootfs":{"type":"layers","diff_ids":[]}}`, nil, []string{"no layer holds it", "0 of 0 layers"}, nil},
		{"diff IDs missing", `{` + dbLabel + `,"rootfs":{"type":"layers","diff_ids":[]}}`, []types.MediaType{types.OCILayer}, []string{"0 diff IDs for 1 layers", "malformed"}, nil},
		{"layer of unknown media type", `{` + dbLabel + `,` + rootfs + `}`, []types.MediaType{"application/vnd.example.blob"},
			[]string{"layer 1 of 1", "application/vnd.example.blob", "not a tar layer"}, []string{"layer 1 of 1", "application/vnd.example.blob", "not a tar layer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := rawLayout(t, c.config, layers, c.layers...)
			cat, err := fetch(t, "oci-layout:"+d, Options{})
			if c.fetchErr != nil {
				wantErr(t, err, append(c.fetchErr, d)...)
			} else if err != nil {
				t.Fatal(err)
			}
			lp, err := layout.FromPath(d)
			if err != nil {
				t.Fatal(err)
			}
			idx, err := lp.ImageIndex()
			if err != nil {
				t.Fatal(err)
			}
			im, err := idx.IndexManifest()
			if err != nil {
				t.Fatal(err)
			}
			base, err := idx.Image(im.Manifests[0].Digest)
			if err != nil {
				t.Fatal(err)
			}
			var hint []v1.Hash
			if cat != nil {
				hint = cat.DatabaseLayers
			}
			catalog := smallCatalog(t)
			img, err := BuildFBCImage(base, catalog, BuildOptions{DatabaseLayers: hint})
			if c.buildErr != nil {
				wantErr(t, err, c.buildErr...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkBuiltImage(t, img, catalog)
		})
	}
}

// configless is an image whose ConfigFile is nil without an error, as a broken v1.Image
// implementation could return.
type configless struct{ v1.Image }

func (configless) ConfigFile() (*v1.ConfigFile, error) { return nil, nil }

func TestImageWithoutConfigFile(t *testing.T) {
	img := configless{imageWith(t, fbcLabels, amd64, randomLayer(t))}
	_, err := extractImage(t, img, Options{})
	wantErr(t, err, "image has no image config", "not a container image")
	_, err = BuildFBCImage(img, smallCatalog(t), BuildOptions{})
	wantErr(t, err, "base image", "no config", "not a container image")
}
