package fbc

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// decodeFastOnly runs the fast decoder alone on a fresh value of the blob's schema.
func decodeFastOnly(schema string, data []byte) bool {
	switch schema {
	case SchemaPackage:
		return new(Package).decodeFast(data)
	case SchemaChannel:
		return new(Channel).decodeFast(data)
	case SchemaBundle:
		return new(Bundle).decodeFast(data)
	case SchemaDeprecations:
		return new(Deprecation).decodeFast(data)
	}
	return false
}

// Every blob of the conformance corpus (valid catalogs, opm's migrate outputs, broken catalogs)
// decodes like encoding/json decodes it, and the fast decoder handles every one that decodes at
// all: real catalogs never take the slow path.
func TestDecodeConformanceBlobs(t *testing.T) {
	dirs := append(validCatalogDirs(t), conformanceGlob(t, "invalid/*/catalog")...)
	blobs := 0
	for _, dir := range dirs {
		name, _ := filepath.Rel(conformanceDir, dir)
		// The walk has its own problems with some broken catalogs; they are tested elsewhere.
		_ = Walk(dir, func(b Blob) error {
			if !isCoreSchema(b.Schema) {
				return nil
			}
			blobs++
			checkDecodeLikeReference(t, b.Data, b.Schema)
			if decodeFastOnly(b.Schema, b.Data) {
				return nil
			}
			if err := blobDecodingOf(b.Schema).reference(blobDecodingOf(b.Schema).fresh(false), b.Data); err == nil {
				t.Errorf("%s %s: the fast decoder gave up on a blob that decodes", name, b.Loc)
			}
			return nil
		})
	}
	if blobs == 0 {
		t.Skipf("no conformance blobs under %s", conformanceDir)
	}
}

func isCoreSchema(s string) bool {
	return s == SchemaPackage || s == SchemaChannel || s == SchemaBundle || s == SchemaDeprecations
}

func blobDecodingOf(schema string) blobDecoding {
	for _, d := range blobDecodings {
		if d.schema == schema {
			return d
		}
	}
	panic("no decoding for " + schema)
}

// Hand-made blobs of the shapes a catalog may hold: each decodes like encoding/json decodes it, and
// fast says whether the fast decoder handles it (false: it leaves it to encoding/json).
var decodeCases = []struct {
	name, schema, blob string
	fast               bool
}{
	{"indented, unknown fields", SchemaBundle, "{\n  \"schema\" : \"olm.bundle\",\n\t\"name\": \"a.v1\", \"package\":\"a\",\"image\":\"i\",\n  \"properties\": [ {\"type\": \"olm.gvk\", \"value\": { \"group\" : \"g\",\n \"kind\": \"K\" } } ],\n  \"zz\": [1, -2.5e+3, true, false, null, \"\\\"}\"],\n  \"aa\": {}\n}\n", true},
	{"escapes in values", SchemaBundle, `{"schema":"olm.bundle","name":"a\u00e9\n\"\\\/","package":"p\ud83d\ude00","image":"\ud800"}`, true},
	{"null everywhere", SchemaBundle, `{"schema":null,"name":null,"package":"p","image":null,"properties":null,"relatedImages":null,"x":null}`, true},
	{"empty lists", SchemaBundle, `{"schema":"olm.bundle","properties":[],"relatedImages":[]}`, true},
	{"property shapes", SchemaBundle, `{"properties":[null,{},{"type":null,"value":null,"other":[{}]},{"value":"v"},{"type":"t","value":[ 1 , 2 ]}]}`, true},
	{"related image fields", SchemaBundle, `{"relatedImages":[{"name":"n","image":"i","extra":{"a":1}},{}]}`, true},
	{"invalid UTF-8 in a string", SchemaBundle, "{\"name\":\"a\xffb\",\"x\":\"\xfe\"}", true},
	{"case-folded property key", SchemaBundle, `{"properties":[{"Type":"olm.gvk","value":{}}]}`, false},
	{"non-ASCII property key", SchemaBundle, `{"properties":[{"typé":"olm.gvk","value":{}}]}`, false},
	{"repeated key", SchemaBundle, `{"name":"a","name":"b"}`, false},
	{"repeated unknown key", SchemaBundle, `{"x":1,"x":2}`, false},
	{"escaped key", SchemaBundle, `{"n\u0061me":"a"}`, false},
	{"wrong type", SchemaBundle, `{"name":1}`, false},
	{"properties not a list", SchemaBundle, `{"properties":{}}`, false},
	{"null related image", SchemaBundle, `{"relatedImages":[null]}`, false},
	{"not an object", SchemaBundle, `[]`, false},
	{"null blob", SchemaBundle, `null`, false},
	{"trailing garbage", SchemaBundle, `{"name":"a"} x`, false},
	{"trailing comma", SchemaBundle, `{"name":"a",}`, false},
	{"bad escape", SchemaBundle, `{"name":"\x"}`, false},
	{"control character", SchemaBundle, "{\"name\":\"a\tb\"}", false},
	{"bad number", SchemaBundle, `{"x":01}`, false},
	{"deep nesting", SchemaBundle, `{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, false},
	{"package with icon", SchemaPackage, `{"schema":"olm.package","name":"p","defaultChannel":"c","icon":{"base64data":"aGVsbG8=","mediatype":"image/png","x":1},"description":"d\nd","properties":[{"type":"olm.deprecated","value":{}}]}`, true},
	{"icon with empty data", SchemaPackage, `{"name":"p","icon":{"base64data":"","mediatype":null}}`, true},
	{"icon null", SchemaPackage, `{"name":"p","icon":null}`, true},
	{"icon with bad base64", SchemaPackage, `{"name":"p","icon":{"base64data":"!!"}}`, false},
	{"icon key in another case", SchemaPackage, `{"name":"p","icon":{"mediaType":"image/png"}}`, false},
	{"channel", SchemaChannel, `{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a"},{"name":"b","replaces":"a","skips":["x",null],"skipRange":"<1.0.0","y":true}],"properties":[]}`, true},
	{"channel entry null", SchemaChannel, `{"entries":[null]}`, false},
	{"channel empty skips", SchemaChannel, `{"entries":[{"name":"a","skips":[]}]}`, true},
	{"deprecations", SchemaDeprecations, `{"schema":"olm.deprecations","package":"p","entries":[{"reference":{"schema":"olm.bundle","name":"b","x":1},"message":"m","y":2},{"reference":null}],"z":3}`, true},
	{"deprecation reference not an object", SchemaDeprecations, `{"entries":[{"reference":"x"}]}`, false},
}

func TestDecodeCases(t *testing.T) {
	for _, c := range decodeCases {
		t.Run(c.name, func(t *testing.T) {
			checkDecodeLikeReference(t, []byte(c.blob), "")
			if got := decodeFastOnly(c.schema, []byte(c.blob)); got != c.fast {
				t.Errorf("fast decoder handles it: %v, want %v", got, c.fast)
			}
		})
	}
}

// Raw values keep their exact text, space included, and a write gives the same bytes whichever
// decoding read the blob.
func TestDecodeKeepsRawTextAndWritesTheSame(t *testing.T) {
	blob := []byte("{\"schema\":\"olm.bundle\",\"name\":\"a\",\"package\":\"p\",\"properties\":[{\"type\":\"t\",\"value\": {\n  \"b\" : [ 1, 2 ] } }],\"zz\": [ 1 ],\"aa\":{ }}")
	var fast, ref Bundle
	if err := fast.UnmarshalJSON(blob); err != nil {
		t.Fatal(err)
	}
	if err := ref.decodeReference(blob); err != nil {
		t.Fatal(err)
	}
	if got := string(fast.Properties[0].Value); got != "{\n  \"b\" : [ 1, 2 ] }" {
		t.Errorf("property value %q", got)
	}
	if got := string(fast.Extra["zz"]); got != "[ 1 ]" {
		t.Errorf("unknown field %q", got)
	}
	var fastOut, refOut bytes.Buffer
	for _, w := range []struct {
		b   *Bundle
		out *bytes.Buffer
	}{{&fast, &fastOut}, {&ref, &refOut}} {
		if err := Write(w.out, &Catalog{Bundles: []Bundle{*w.b}}, JSON); err != nil {
			t.Fatal(err)
		}
	}
	if fastOut.String() != refOut.String() {
		t.Errorf("written:\n%s\nencoding/json decoded, written:\n%s", fastOut.String(), refOut.String())
	}
	if !strings.Contains(fastOut.String(), "\"aa\": {},\n    \"zz\": [\n") {
		t.Errorf("unknown fields not written in key order after the known ones:\n%s", fastOut.String())
	}
}

// Errors still name the field whose value has the wrong type.
func TestDecodeErrorNamesTheField(t *testing.T) {
	for blob, field := range map[string]string{
		`{"schema":"olm.bundle","name":"a","image":5}`:                        `field "image"`,
		`{"schema":"olm.bundle","name":"a","properties":[{"type":1}]}`:        `field "properties"`,
		`{"schema":"olm.channel","name":"c","entries":[{"skips":"a"}]}`:       `field "entries"`,
		`{"schema":"olm.package","name":"p","icon":{"base64data":"%%"}}`:      `field "icon"`,
		`{"schema":"olm.deprecations","entries":[{"reference":{"name":[]}}]}`: `field "entries"`,
	} {
		var err error
		var v any
		switch {
		case strings.Contains(blob, SchemaBundle):
			v = &Bundle{}
		case strings.Contains(blob, SchemaChannel):
			v = &Channel{}
		case strings.Contains(blob, SchemaPackage):
			v = &Package{}
		default:
			v = &Deprecation{}
		}
		err = json.Unmarshal([]byte(blob), v)
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming %s", blob, err, field)
		}
	}
}
