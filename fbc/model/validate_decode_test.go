package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

var bundleSeeds = []string{
	`{"schema":"olm.bundle","name":"demo.v1.0.0","package":"demo","image":"quay.io/demo:v1","properties":[{"type":"olm.package","value":{"packageName":"demo","version":"1.0.0"}},{"type":"olm.bundle.object","value":{"data":"eyJraW5kIjoiQ1NWIn0="}}],"relatedImages":[{"name":"","image":"quay.io/demo:v1"}]}`,
	"{\n    \"schema\": \"olm.bundle\",\n    \"name\": \"a\\u0062c\",\n    \"package\": \"demo\",\n    \"image\": null,\n    \"properties\": [\n        {\n            \"type\": \"olm.gvk\",\n            \"value\": {\"group\": \"g\", \"kind\": \"K\", \"version\": \"v1\"}\n        }\n    ],\n    \"extra\": [1, {\"a\": \"\\\"}\"}]\n}",
	`{"schema":"olm.bundle","name":"x","package":"p","properties":null,"relatedImages":null}`,
	`{"schema":"olm.bundle","name":"x","package":"p","properties":[{"TYPE":"olm.package","value":1}]}`,
	`{"schema":"olm.bundle","name":"x","package":"p","properties":[{"type":null,"value":null,"other":true}]}`,
	`{"schema":"olm.bundle","name":5,"package":"p"}`,
	`{"schema":"olm.bundle","name":"x","package":"p","relatedImages":"no"}`,
	`{"schema":"olm.bundle","name":"x","package":"p","relatedImages":[{"Image":"i"}]}`,
	`{"schema":"olm.bundle","name":"x","name":"y","package":"p","properties":[{"type":"a","value":{}}],"properties":[]}`,
	"{\"schema\":\"olm.bundle\",\"name\":\"\xff\",\"package\":\"p\"}",
	`{"schema":"olm.bundle","na\u006de":"x","package":"p"}`,
	`[]`,
}

// FuzzDecodeBundleFast: the validator's bundle decoding (fbc's one-pass decoder) accepts exactly
// the blobs that plain encoding/json decoding accepts, and gives the same name, package, image and
// properties, byte for byte.
func FuzzDecodeBundleFast(f *testing.F) {
	for _, s := range bundleSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast fbc.Bundle
		ok := decodeBundleFast(data, &fast)
		want, err := decodeBundleWithEncodingJSON(data)
		if ok != (err == nil) {
			t.Fatalf("validator decodes: %v, encoding/json: %v\n%q", ok, err, data)
		}
		if !ok {
			return
		}
		if fast.Name != want.Name || fast.Package != want.Package || fast.Image != want.Image {
			t.Fatalf("fields differ: fast %q %q %q, encoding/json %q %q %q", fast.Name, fast.Package, fast.Image, want.Name, want.Package, want.Image)
		}
		if len(fast.Properties) != len(want.Properties) {
			t.Fatalf("properties: fast %d, encoding/json %d", len(fast.Properties), len(want.Properties))
		}
		for i := range want.Properties {
			if fast.Properties[i].Type != want.Properties[i].Type || !bytes.Equal(fast.Properties[i].Value, want.Properties[i].Value) {
				t.Fatalf("property %d: fast %q %s, encoding/json %q %s", i, fast.Properties[i].Type, fast.Properties[i].Value,
					want.Properties[i].Type, want.Properties[i].Value)
			}
		}
	})
}

// decodeBundleWithEncodingJSON decodes what the validator reads of a bundle with encoding/json
// alone, as the loader's original decoding did: top-level keys match exactly (the last of a
// repeated key wins), property keys case-insensitively, related images must be objects whose name
// and image are strings.
func decodeBundleWithEncodingJSON(data []byte) (fbc.Bundle, error) {
	var b fbc.Bundle
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return b, err
	}
	if fields == nil {
		return b, errors.New("null blob")
	}
	for _, f := range []struct {
		key  string
		into any
	}{{"schema", &b.Schema}, {"name", &b.Name}, {"package", &b.Package}, {"image", &b.Image}, {"properties", &b.Properties}} {
		if raw, ok := fields[f.key]; ok {
			if err := json.Unmarshal(raw, f.into); err != nil {
				return b, err
			}
		}
	}
	var images []map[string]json.RawMessage
	if raw, ok := fields["relatedImages"]; ok {
		if err := json.Unmarshal(raw, &images); err != nil {
			return b, err
		}
	}
	for _, image := range images {
		if image == nil {
			return b, errors.New("null related image")
		}
		var s string
		for _, key := range []string{"name", "image"} {
			if raw, ok := image[key]; ok {
				if err := json.Unmarshal(raw, &s); err != nil {
					return b, err
				}
			}
		}
	}
	return b, nil
}

func TestDecodeBundleFastRefusesWhatDoesNotDecode(t *testing.T) {
	for i, want := range []bool{true, true, true, true, true, false, false, true, true, true, true, false} {
		var b fbc.Bundle
		if got := decodeBundleFast([]byte(bundleSeeds[i]), &b); got != want {
			t.Errorf("seed %d: decodes %v, want %v: %s", i, got, want, bundleSeeds[i])
		}
	}
}

// FuzzParseBundleObject: the in-place check of {"data": "<base64>"} accepts exactly what decoding
// the value with encoding/json accepts.
func FuzzParseBundleObject(f *testing.F) {
	for _, s := range []string{`{"data":"eyJhIjoxfQ=="}`, "{ \"data\" : \"eyJhIjoxfQ\" }", `{"data":"!!"}`,
		`{"ref":"x.yaml"}`, `{"data":"eyJhIjoxfQ==","ref":"x"}`, `{"data":"ey\/J"}`, `null`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var scratch []byte
		fast := parseBundleObject(raw, &scratch)
		var v struct {
			Ref  string `json:"ref"`
			Data []byte `json:"data"`
		}
		slow := json.Unmarshal(raw, &v)
		if slow == nil && v.Ref != "" && len(v.Data) > 0 {
			slow = errFieldsExclusive
		}
		if (fast == nil) != (slow == nil) {
			t.Fatalf("%s: in place %v, encoding/json %v", raw, fast, slow)
		}
	})
}

// FuzzValidateStream: whatever the catalog text, loading and validating it never panics, and every
// issue is located and has a fix hint.
func FuzzValidateStream(f *testing.F) {
	var demo bytes.Buffer
	if err := fbc.Write(&demo, demoCatalog(), fbc.JSON); err != nil {
		f.Fatal(err)
	}
	f.Add(demo.Bytes())
	f.Add([]byte(`{"schema":"olm.package","name":"p","defaultChannel":"c"}{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a","replaces":"b","skips":["b",""],"skipRange":"<1.0.0 >x"},{"name":"b","replaces":"a"}]}`))
	f.Add([]byte("schema: olm.bundle\nname: a\npackage: p\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 1.0.0, release: \"01\"}\n"))
	// a downgrade offered (b's range covers a) and requirements nothing provides
	f.Add([]byte(`{"schema":"olm.package","name":"p","defaultChannel":"c"}{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a","replaces":"b"},{"name":"b","skipRange":">0.1.0"}]}` +
		`{"schema":"olm.bundle","name":"a","package":"p","image":"i","properties":[{"type":"olm.package","value":{"packageName":"p","version":"2.0.0"}},{"type":"olm.gvk.required","value":{"group":"g","kind":"K","version":"v1"}}]}` +
		`{"schema":"olm.bundle","name":"b","package":"p","image":"i","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}},{"type":"olm.package.required","value":{"packageName":"q","versionRange":">=1.0.0"}}]}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		v := NewValidator(Options{})
		issues, err := v.Finish(fbc.Loader{}.WalkReader(bytes.NewReader(text), "catalog.json", v.Add))
		if err != nil {
			t.Fatalf("not a load problem: %v", err)
		}
		for _, i := range issues {
			if (i.File == "" && i.Rule != "load-more") || i.Hint == "" || i.Message == "" {
				t.Fatalf("issue without location, hint or message: %#v", i)
			}
		}
	})
}

// The property checks skip encoding/json for objects stringObject accepts: each must decode into
// every struct of strings the checks use.
func FuzzStringObject(f *testing.F) {
	f.Add([]byte(`{"group": "g", "kind": "K", "version": "v1"}`))
	f.Add([]byte(`{"packageName":"etcd","version":"0.9.4"}`))
	f.Add([]byte(`{"a":"b":}`))
	f.Add([]byte(`{"a","b":"c"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte("{\"a\":\"\x01\"}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !stringObject(raw) {
			return
		}
		var pkg property.Package
		var req property.PackageRequired
		var gvk property.GVK
		for _, v := range []any{&pkg, &req, &gvk} {
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("stringObject(%q) is true, but decoding into %T fails: %v", raw, v, err)
			}
		}
	})
}

func TestStringObject(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"group": "g", "kind": "K", "version": "v1"}`: true,
		" {\n  \"packageName\": \"etcd\"\n} ":          true,
		`{}`:                                           true,
		`{"a":"b":}`:                                   false,
		`{"a","b":"c"}`:                                false,
		`{"a":"b",}`:                                   false,
		`{"a":1}`:                                      false,
		`{"a":"\u0041"}`:                               false,
		"{\"a\":\"\x01\"}":                             false,
		`{"a":"b"} x`:                                  false,
	} {
		if got := stringObject([]byte(raw)); got != want {
			t.Errorf("stringObject(%q) = %v, want %v", raw, got, want)
		}
	}
}
