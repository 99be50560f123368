package fbc

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestWriteCatalogJSONMatchesFbcWrite checks the direct writer against Write (itself tested
// against opm's output) on the blob shapes a conversion produces, odd strings included.
func TestWriteCatalogJSONMatchesFbcWrite(t *testing.T) {
	obj := Property{Type: typeBundleObject, Value: json.RawMessage(`{"data":"` + base64.StdEncoding.EncodeToString([]byte(`{"kind":"ClusterServiceVersion","metadata":{"name":"a"}}`)) + `"}`)}
	odd := "tab\there \"quoted\" back\\slash <&> \u2028 é \x01 \xff"
	catalogs := map[string]*Catalog{
		"full": {
			Packages: []Package{{Schema: SchemaPackage, Name: "p", DefaultChannel: "stable",
				Icon: &Icon{Data: []byte{0x89, 'P', 'N', 'G'}, MediaType: "image/png"}}},
			Channels: []Channel{
				{Schema: SchemaChannel, Name: "alpha", Package: "p"},
				{Schema: SchemaChannel, Name: "stable", Package: "p", Entries: []ChannelEntry{
					{Name: "p.v1"},
					{Name: "p.v2", Replaces: "p.v1"},
					{Name: "p.v3", Skips: []string{"p.v2", "p.v1"}},
					{Name: "p.v4", SkipRange: "<4.0.0"},
					{Name: "p.v5", Replaces: "p.v4", Skips: []string{"x"}, SkipRange: ">=1.0.0 <5.0.0"},
					{Name: "p.v6", Replaces: "p.v5", SkipRange: odd},
				}},
			},
			Bundles: []Bundle{
				{Schema: SchemaBundle, Name: "p.v1", Package: "p", Image: ""},
				{Schema: SchemaBundle, Name: "p.v2", Package: "p", Image: "quay.io/p:2",
					Properties: []Property{
						{Type: "olm.gvk", Value: json.RawMessage(`{"group":"g","kind":"K","version":"v1"}`)},
						{Type: "olm.package", Value: json.RawMessage(`{"packageName":"p","version":"2.0.0"}`)},
						{Type: "custom", Value: json.RawMessage(`{"a":[1,{"b":[]},{}],"c":"\u003cx\u0026y\u003e","d":null}`)},
						{Type: "empty", Value: json.RawMessage(`[]`)},
						{Type: "null element"},
						{Type: "scalar", Value: json.RawMessage(`"` + "s" + `"`)},
						obj, obj,
						// bundle objects as a loaded file has them, and shapes that are not the plain one
						{Type: typeBundleObject, Value: json.RawMessage("{\n                \"data\": \"QUJD\"\n            }")},
						{Type: typeBundleObject, Value: json.RawMessage(" \t{\r\n\"data\"\t:\n\"\"}")},
						{Type: typeBundleObject, Value: json.RawMessage(`{"data":"QUJD"}` + "\n ")},
						{Type: typeBundleObject, Value: json.RawMessage(`{"data":"Q\u0055JD"}`)},
						{Type: typeBundleObject, Value: json.RawMessage(`{"data":"QUJD","x":1}`)},
						{Type: typeBundleObject, Value: json.RawMessage(`{"datum":"QUJD"}`)},
						{Type: typeBundleObject, Value: json.RawMessage(`{"data":["QUJD"]}`)},
						{Type: typeBundleObject, Value: json.RawMessage(`{ }`)},
						{Type: "custom", Value: json.RawMessage(`{"a": [1]}` + "\r\n\t ")},
					}},
				{Schema: SchemaBundle, Name: "p.v3", Package: "p", Image: odd,
					RelatedImages: []RelatedImage{{Name: "", Image: "a"}, {Name: odd, Image: "b"}}},
				{Schema: SchemaBundle, Name: "p.v4", Package: "p", Image: "i",
					Properties:    []Property{{Type: "olm.package", Value: json.RawMessage(`{"packageName":"p","version":"4.0.0"}`)}},
					RelatedImages: []RelatedImage{{Image: "x"}}},
			},
			Deprecations: []Deprecation{{Schema: SchemaDeprecations, Package: "p", Entries: []DeprecationEntry{
				{Reference: Reference{Schema: SchemaBundle, Name: "p.v1"}, Message: odd},
				{Reference: Reference{Schema: SchemaPackage}, Message: "gone"},
			}}},
		},
		"minimal": {Packages: []Package{{Schema: SchemaPackage, Name: "q"}}},
		"bundles only": {Bundles: []Bundle{{Schema: SchemaBundle, Name: "s.v1", Package: "s", Image: "i", Properties: []Property{obj},
			RelatedImages: []RelatedImage{{Image: "i"}}}}},
		// a rendered template's package: the CSV's description and icon, and what else a package may have
		"described": {Packages: []Package{{Schema: SchemaPackage, Name: "r", DefaultChannel: "stable",
			Icon: &Icon{Data: []byte{0x89, 'P', 'N', 'G'}, MediaType: "image/png"}, Description: "# R\n" + odd,
			Properties: []Property{{Type: "custom", Value: json.RawMessage(`{"b":[1,2],"a":"<&>"}`)}},
			Extra:      Extra{"zz": json.RawMessage(`{"k":"v"}`)}}},
			Bundles: []Bundle{{Schema: SchemaBundle, Name: "r.v1", Package: "r", Image: "i", Properties: []Property{obj}}}},
	}
	for name, c := range catalogs {
		if !fastWritable(c) {
			t.Fatalf("%s: not taken by the direct writer", name)
		}
		var want, got bytes.Buffer
		if err := writePackage(&want, c, JSON); err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(&got)
		if err := writeCatalogJSON(w, c); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("%s: direct writer differs from Write\n%s", name, firstLineDifference(want.Bytes(), got.Bytes()))
		}
	}
}

func TestFastWritableRefusesOtherShapes(t *testing.T) {
	base := func() *Catalog {
		return &Catalog{Packages: []Package{{Schema: SchemaPackage, Name: "p"}},
			Bundles: []Bundle{{Schema: SchemaBundle, Name: "a", Package: "p"}, {Schema: SchemaBundle, Name: "b", Package: "p"}}}
	}
	for name, mutate := range map[string]func(c *Catalog){
		"extra field":   func(c *Catalog) { c.Bundles[0].Extra = Extra{"x": json.RawMessage(`1`)} },
		"other package": func(c *Catalog) { c.Bundles[1].Package = "q" },
		"unsorted":      func(c *Catalog) { c.Bundles[0], c.Bundles[1] = c.Bundles[1], c.Bundles[0] },
		"custom blob":   func(c *Catalog) { c.Others = []Meta{{Schema: "x"}} },
		"two packages":  func(c *Catalog) { c.Packages = append(c.Packages, Package{Name: "q"}) },
		"channel props": func(c *Catalog) {
			c.Channels = []Channel{{Name: "s", Package: "p", Properties: []Property{{}}}}
		},
		"no package row": func(c *Catalog) { c.Packages, c.Bundles = nil, nil },
	} {
		c := base()
		mutate(c)
		if fastWritable(c) {
			t.Errorf("%s: taken by the direct writer", name)
		}
	}
}

func firstLineDifference(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %.300s\n  got:  %.300s", i+1, w, g)
		}
	}
	return "(no line differs)"
}
