package csvmeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

const conformance = "../../../shared/conformance"

// TestMetadataReencodesOpmBytes decodes every olm.csv.metadata that opm's migrate wrote in the
// conformance corpus and checks that encoding it again gives opm's bytes (field order, omitempty).
func TestMetadataReencodesOpmBytes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformance, "sqlite", "*", "migrate-csvmeta", "*", "catalog.json"))
	if len(files) == 0 {
		t.Skipf("conformance corpus not found under %s", conformance)
	}
	checked := 0
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(f)
		for {
			var blob struct {
				Properties []struct {
					Type  string          `json:"type"`
					Value json.RawMessage `json:"value"`
				} `json:"properties"`
			}
			if err := dec.Decode(&blob); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for _, p := range blob.Properties {
				if p.Type != "olm.csv.metadata" {
					continue
				}
				var m Metadata
				if err := json.Unmarshal(p.Value, &m); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				var want, got bytes.Buffer
				if err := json.Compact(&want, p.Value); err != nil {
					t.Fatal(err)
				}
				enc := json.NewEncoder(&got)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(m); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(bytes.TrimSuffix(got.Bytes(), []byte("\n")), want.Bytes()) {
					t.Errorf("%s: re-encoded metadata differs:\n got %.400s\nwant %.400s", file, got.Bytes(), want.Bytes())
				}
				checked++
			}
		}
		f.Close()
	}
	if checked == 0 {
		t.Fatal("no olm.csv.metadata found in the corpus")
	}
}

func TestFromCSVAndSynthesize(t *testing.T) {
	csv := []byte(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
		"metadata":{"name":"x.v1.0.0","annotations":{"a":"<b>"},"labels":{"l":"v"}},
		"spec":{"displayName":"X","version":"1.0.0","maturity":"alpha",
			"customresourcedefinitions":{"owned":[{"name":"foos.x.io","version":"v1","kind":"Foo","specDescriptors":[{"path":"p","value":{"k":1}}]}]},
			"install":{"strategy":"deployment","spec":{"deployments":[{"name":"d"}]}},
			"installModes":[{"type":"OwnNamespace","supported":true}],
			"provider":{"name":"P"}}}`)
	meta, err := FromCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SynthesizeCSV(meta,
		Bundle{Name: "x.v1.0.0", Version: "1.0.0", RelatedImages: []RelatedImage{{Name: "op", Image: "reg/x@sha256:1"}}},
		Package{Description: "from the package", Icon: IconOf([]byte("svg"), "image/svg+xml")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1",` +
		`"metadata":{"name":"x.v1.0.0","labels":{"l":"v"},"annotations":{"a":"\u003cb\u003e"}},` +
		`"spec":{"install":{"strategy":"deployment","spec":{"deployments":null}},"version":"1.0.0","maturity":"alpha",` +
		`"customresourcedefinitions":{"owned":[{"name":"foos.x.io","version":"v1","kind":"Foo","specDescriptors":[{"path":"p","value":{"k":1}}]}]},` +
		`"apiservicedefinitions":{},"displayName":"X","description":"from the package","provider":{"name":"P"},` +
		`"icon":[{"base64data":"c3Zn","mediatype":"image/svg+xml"}],"installModes":[{"type":"OwnNamespace","supported":true}],` +
		`"cleanup":{"enabled":false},"relatedImages":[{"name":"op","image":"reg/x@sha256:1"}]},"status":{"cleanup":{}}}`
	if string(got) != want {
		t.Errorf("synthesized CSV:\n got %s\nwant %s", got, want)
	}
	if _, err := FromCSV([]byte(`{"spec":[]}`)); err == nil {
		t.Error("FromCSV accepted a CSV whose spec is not an object")
	}
}
