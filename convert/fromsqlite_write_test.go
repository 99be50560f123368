package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// TestWriteCatalogJSONMatchesFbcWrite checks the direct writer against fbc.Write (itself tested
// against opm's output) on the blob shapes a conversion produces, odd strings included.
func TestWriteCatalogJSONMatchesFbcWrite(t *testing.T) {
	obj := bundleObjectProperty([]byte(`{"kind":"ClusterServiceVersion","metadata":{"name":"a"}}`))
	odd := "tab\there \"quoted\" back\\slash <&> \u2028 é \x01 \xff"
	catalogs := map[string]*fbc.Catalog{
		"full": {
			Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "p", DefaultChannel: "stable",
				Icon: &fbc.Icon{Data: []byte{0x89, 'P', 'N', 'G'}, MediaType: "image/png"}}},
			Channels: []fbc.Channel{
				{Schema: fbc.SchemaChannel, Name: "alpha", Package: "p"},
				{Schema: fbc.SchemaChannel, Name: "stable", Package: "p", Entries: []fbc.ChannelEntry{
					{Name: "p.v1"},
					{Name: "p.v2", Replaces: "p.v1"},
					{Name: "p.v3", Skips: []string{"p.v2", "p.v1"}},
					{Name: "p.v4", SkipRange: "<4.0.0"},
					{Name: "p.v5", Replaces: "p.v4", Skips: []string{"x"}, SkipRange: ">=1.0.0 <5.0.0"},
					{Name: "p.v6", Replaces: "p.v5", SkipRange: odd},
				}},
			},
			Bundles: []fbc.Bundle{
				{Schema: fbc.SchemaBundle, Name: "p.v1", Package: "p", Image: ""},
				{Schema: fbc.SchemaBundle, Name: "p.v2", Package: "p", Image: "quay.io/p:2",
					Properties: []fbc.Property{
						{Type: "olm.gvk", Value: json.RawMessage(`{"group":"g","kind":"K","version":"v1"}`)},
						{Type: "olm.package", Value: json.RawMessage(`{"packageName":"p","version":"2.0.0"}`)},
						{Type: "custom", Value: json.RawMessage(`{"a":[1,{"b":[]},{}],"c":"\u003cx\u0026y\u003e","d":null}`)},
						{Type: "empty", Value: json.RawMessage(`[]`)},
						{Type: "scalar", Value: json.RawMessage(`"` + "s" + `"`)},
						obj, obj,
					}},
				{Schema: fbc.SchemaBundle, Name: "p.v3", Package: "p", Image: odd,
					RelatedImages: []fbc.RelatedImage{{Name: "", Image: "a"}, {Name: odd, Image: "b"}}},
				{Schema: fbc.SchemaBundle, Name: "p.v4", Package: "p", Image: "i",
					Properties:    []fbc.Property{{Type: "olm.package", Value: json.RawMessage(`{"packageName":"p","version":"4.0.0"}`)}},
					RelatedImages: []fbc.RelatedImage{{Image: "x"}}},
			},
			Deprecations: []fbc.Deprecation{{Schema: fbc.SchemaDeprecations, Package: "p", Entries: []fbc.DeprecationEntry{
				{Reference: fbc.Reference{Schema: fbc.SchemaBundle, Name: "p.v1"}, Message: odd},
				{Reference: fbc.Reference{Schema: fbc.SchemaPackage}, Message: "gone"},
			}}},
		},
		"minimal": {Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "q"}}},
	}
	for name, c := range catalogs {
		if !fastWritable(c) {
			t.Fatalf("%s: not taken by the direct writer", name)
		}
		var want, got bytes.Buffer
		if err := fbc.Write(&want, c, fbc.JSON); err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(&got)
		if err := writeCatalogJSON(w, c); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("%s: direct writer differs from fbc.Write\n%s", name, firstDifference(want.Bytes(), got.Bytes()))
		}
	}
}

func TestFastWritableRefusesOtherShapes(t *testing.T) {
	base := func() *fbc.Catalog {
		return &fbc.Catalog{Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "p"}},
			Bundles: []fbc.Bundle{{Schema: fbc.SchemaBundle, Name: "a", Package: "p"}, {Schema: fbc.SchemaBundle, Name: "b", Package: "p"}}}
	}
	for name, mutate := range map[string]func(c *fbc.Catalog){
		"description":   func(c *fbc.Catalog) { c.Packages[0].Description = "d" },
		"extra field":   func(c *fbc.Catalog) { c.Bundles[0].Extra = fbc.Extra{"x": json.RawMessage(`1`)} },
		"other package": func(c *fbc.Catalog) { c.Bundles[1].Package = "q" },
		"unsorted":      func(c *fbc.Catalog) { c.Bundles[0], c.Bundles[1] = c.Bundles[1], c.Bundles[0] },
		"custom blob":   func(c *fbc.Catalog) { c.Others = []fbc.Meta{{Schema: "x"}} },
		"two packages":  func(c *fbc.Catalog) { c.Packages = append(c.Packages, fbc.Package{Name: "q"}) },
		"channel props": func(c *fbc.Catalog) {
			c.Channels = []fbc.Channel{{Name: "s", Package: "p", Properties: []fbc.Property{{}}}}
		},
		"no package row": func(c *fbc.Catalog) { c.Packages = nil },
	} {
		c := base()
		mutate(c)
		if fastWritable(c) {
			t.Errorf("%s: taken by the direct writer", name)
		}
	}
}
