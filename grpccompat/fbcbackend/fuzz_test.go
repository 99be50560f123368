package fbcbackend

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
)

// Body records come back from disk: any bytes must decode to a body or an error, never a panic,
// and every encoded body must decode to itself.
func FuzzDecodeBody(f *testing.F) {
	f.Add(encodeBody(body{CSVIndex: 0, Objects: []string{`{"kind":"ClusterServiceVersion"}`, `{}`}}))
	f.Add(encodeBody(body{CSVIndex: -1, CSVMeta: []byte(`{"displayName":"x"}`), Version: "1.0.0", Related: []csvmeta.RelatedImage{{Name: "a", Image: "b"}}}))
	f.Add([]byte{bodyManifests, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := decodeBody(data)
		if err != nil {
			return
		}
		again, err := decodeBody(encodeBody(b))
		if err != nil || !reflect.DeepEqual(normalizeBody(again), normalizeBody(b)) {
			t.Fatalf("re-encoded body does not round trip: %#v vs %#v (%v)", again, b, err)
		}
	})
}

func normalizeBody(b body) body {
	if len(b.Objects) == 0 {
		b.Objects = nil
	}
	if len(b.CSVMeta) == 0 {
		b.CSVMeta = nil
	}
	return b
}

// Bundle blobs are catalog input: any JSON must convert or fail with an error.
func FuzzConvertBundle(f *testing.F) {
	f.Add([]byte(`{"schema":"olm.bundle","name":"a.v1.0.0","package":"a","image":"i","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}}]}`))
	f.Add([]byte(`{"schema":"olm.bundle","name":"a","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.bundle.object","value":{"data":"a2luZDogQ2x1c3RlclNlcnZpY2VWZXJzaW9uCg=="}}]}`))
	f.Add([]byte(`{"schema":"olm.bundle","name":"a","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.csv.metadata","value":{"displayName":"A","crdDescriptions":{"owned":[{"name":"x","version":"v1","kind":"X","specDescriptors":[{"path":"p","value":[1,2]}]}]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := convertBundle(data)
		if err != nil {
			return
		}
		b, err := decodeBody(c.record)
		if err != nil || !bytes.Equal(encodeBody(b), c.record) {
			t.Fatalf("the record of a converted bundle is not what encodeBody gives for it (%v)", err)
		}
		if b.CSVMeta != nil {
			_, _ = synthesizeCSV(c.name, b, csvmeta.Package{})
		}
	})
}

// The allocation-free reading of a manifest's kind answers as the JSON decoder does.
func FuzzTopLevelKind(f *testing.F) {
	for _, s := range []string{`{"apiVersion":"v1","kind":"ClusterServiceVersion","metadata":{}}`, ` { "kind" : "X" }`,
		`{"apiVersion":"v1" "kind":"X"}`, `{"a":1,"kind":"X"}`, `{"kind":"\u0058"}`, "{\"kind\":\"\xff\"}", `{"kind":1}`, `[]`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, obj string) {
		if got, want := topLevelKind(obj), kindByDecoder(obj); got != want {
			t.Fatalf("topLevelKind(%q) = %q, the decoder reads %q", obj, got, want)
		}
	})
}

// The shortcut of normalizeJSON must never change an answer: whatever it takes as already
// normal, decoding and re-encoding gives back byte for byte.
func FuzzNormalizeJSONShortcut(f *testing.F) {
	for _, seed := range normalizeCases {
		f.Add([]byte(seed.in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		normal, spaced := normalJSON(raw)
		if !normal {
			return
		}
		want := raw
		if spaced {
			want = compactNormal(raw)
		}
		slow, err := normalizeSlowly(raw)
		if err != nil || !bytes.Equal(slow, want) {
			t.Fatalf("normalJSON(%q) took the shortcut to %q, but decoding and re-encoding gives %q (%v)", raw, want, slow, err)
		}
	})
}

// Whatever sortJSON sorts is what decoding into maps and re-encoding gives.
func FuzzSortJSON(f *testing.F) {
	for _, seed := range normalizeCases {
		f.Add([]byte(seed.in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sorted, ok := sortJSON(raw)
		if !ok {
			return
		}
		slow, err := normalizeSlowly(raw)
		if err != nil || !bytes.Equal(slow, sorted) {
			t.Fatalf("sortJSON(%q) = %q, but decoding and re-encoding gives %q (%v)", raw, sorted, slow, err)
		}
	})
}

// stringFields must read what encoding/json reads, whenever it claims to have read it.
func FuzzStringFields(f *testing.F) {
	f.Add([]byte(`{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`))
	f.Add([]byte(`{"group":"a","group":"b"}`))
	f.Add([]byte(`{"Group":"a"}`))
	f.Add([]byte(`{"group":null}`))
	f.Add([]byte(`{"group":"a\u0041"}`))
	f.Add([]byte(`{ "kind" : "K" , "version":"v1" }`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast property.GVK
		if !stringFields(raw, []string{"group", "kind", "version"}, &fast.Group, &fast.Kind, &fast.Version) {
			return
		}
		var slow property.GVK
		if err := json.Unmarshal(raw, &slow); err != nil || slow != fast {
			t.Fatalf("stringFields(%q) = %+v, encoding/json: %+v, %v", raw, fast, slow, err)
		}
	})
}
