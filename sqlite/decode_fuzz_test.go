package sqlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// The decoders of stored values are fuzzed against encoding/json doing the same job the slow way:
// they must never panic and must agree with it. Seeds are in testdata/fuzz/<FuzzName>/.

// splitWithDecoder is the reference for SplitObjects: opm's way, a JSON decoder over the column.
func splitWithDecoder(blob []byte) ([][]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(blob))
	var out [][]byte
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if raw[0] != '{' {
			return nil, errors.New("not an object")
		}
		out = append(out, raw)
	}
}

func FuzzSplitObjects(f *testing.F) {
	f.Add([]byte(`{"kind":"ClusterServiceVersion"}` + "\n" + `{"a":[1,"}",{"b":"\"{"}]}` + "\n"))
	f.Add([]byte(" {} \n{}"))
	f.Fuzz(func(t *testing.T, blob []byte) {
		got, err := SplitObjects(blob)
		want, werr := splitWithDecoder(blob)
		if (err == nil) != (werr == nil) {
			t.Fatalf("SplitObjects error %v, decoder error %v", err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d objects, decoder found %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("object %d: %q, decoder %q", i, got[i], want[i])
			}
		}
		csv := csvmeta.FindCSV(got)
		var first []byte
		for _, o := range got {
			var m map[string]any
			if json.Unmarshal(o, &m) == nil && m["kind"] == "ClusterServiceVersion" {
				first = o
				break
			}
		}
		if !bytes.Equal(csv, first) {
			t.Fatalf("FindCSV %q, map decoding finds %q", csv, first)
		}
	})
}

func FuzzCSVRelatedImages(f *testing.F) {
	f.Add([]byte(`{"spec":{"relatedImages":[{"name":"a","image":"b"}]}}`))
	f.Add([]byte(`{"Spec":{"relatedimages":[{"NAME":"a"}]},"spec":null,"SPEC":{"relatedImages":null}}`))
	f.Fuzz(func(t *testing.T, csv []byte) {
		if !json.Valid(csv) {
			return // callers only pass manifests SplitObjects validated
		}
		got, err := CSVRelatedImages(csv)
		var doc struct {
			Spec struct {
				RelatedImages []RelatedImage `json:"relatedImages"`
			} `json:"spec"`
		}
		werr := json.Unmarshal(csv, &doc)
		if (err == nil) != (werr == nil) {
			t.Fatalf("error %v, json.Unmarshal error %v", err, werr)
		}
		if err != nil {
			return
		}
		want := doc.Spec.RelatedImages
		if want == nil {
			want = []RelatedImage{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %#v, json.Unmarshal %#v", got, want)
		}
	})
}

func FuzzCSVFields(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"x","annotations":{"olm.skipRange":"<1.0.0"}},"spec":{"version":"1.0.0","replaces":"y","skips":["z"],` +
		`"install":{"strategy":"deployment","spec":{"deployments":[{"spec":{"template":{"spec":{"containers":[{"image":"i"}]}}}}]}},` +
		`"customresourcedefinitions":{"required":[{"name":"as.g","version":"v1","kind":"A"}]},"icon":[{"base64data":"aGk=","mediatype":"t"}]}}`))
	f.Fuzz(func(t *testing.T, csv []byte) {
		if fields, err := ParseCSVFields(csv); err == nil && fields == nil {
			t.Fatal("no fields and no error")
		}
		if icon, err := csvmeta.PackageIcon(csv); err == nil && icon != nil && len(icon.Data) == 0 {
			t.Fatal("empty icon returned")
		}
	})
}

func FuzzDecodeValues(f *testing.F) {
	f.Add(`{"group":"g","kind":"K","version":"v1"}`)
	f.Add(`{"packageName":"p","version":"\u003e 1.0.0","release":"2"}`)
	f.Add(`{"type":"olm.gvk","group":"g","kind":"K","version":"v1"}`)
	f.Fuzz(func(t *testing.T, value string) {
		if g, err := DecodeGVK(value); err == nil {
			var ref GVK
			if json.Unmarshal([]byte(strings.TrimSpace(value)), &ref) != nil || ref != g {
				t.Fatalf("DecodeGVK %+v, json.Unmarshal %+v", g, ref)
			}
		}
		if p, err := DecodePackage(value); err == nil {
			var ref PackageValue
			if json.Unmarshal([]byte(strings.TrimSpace(value)), &ref) != nil || ref != p {
				t.Fatalf("DecodePackage %+v, json.Unmarshal %+v", p, ref)
			}
		}
	})
}

func FuzzSplitSkips(f *testing.F) {
	f.Add("a.v1,b.v2")
	f.Add("")
	f.Add(",,")
	f.Fuzz(func(t *testing.T, s string) {
		parts := SplitSkips(s)
		if s == "" && parts != nil {
			t.Fatalf("%q split into %q", s, parts)
		}
		if strings.Join(parts, ",") != s {
			t.Fatalf("%q split into %q", s, parts)
		}
	})
}
