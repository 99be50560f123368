package fbc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func decodeStreamForTest(t *testing.T, data []byte) *Catalog {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	c := &Catalog{}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		var head struct{ Schema string }
		json.Unmarshal(raw, &head)
		var err error
		switch head.Schema {
		case SchemaPackage:
			var p Package
			err = json.Unmarshal(raw, &p)
			c.Packages = append(c.Packages, p)
		case SchemaChannel:
			var p Channel
			err = json.Unmarshal(raw, &p)
			c.Channels = append(c.Channels, p)
		case SchemaBundle:
			var p Bundle
			err = json.Unmarshal(raw, &p)
			c.Bundles = append(c.Bundles, p)
		case SchemaDeprecations:
			var p Deprecation
			err = json.Unmarshal(raw, &p)
			c.Deprecations = append(c.Deprecations, p)
		default:
			var p Meta
			err = json.Unmarshal(raw, &p)
			c.Others = append(c.Others, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestWriteJSONMatchesOpmMigrateOutput(t *testing.T) {
	files, _ := filepath.Glob("../../shared/conformance/sqlite/*/migrate*/*/catalog.json")
	if len(files) == 0 {
		t.Skip("conformance corpus not found at ../../shared/conformance")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := decodeStreamForTest(t, data)
		var out bytes.Buffer
		if err := Write(&out, c, JSON); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Errorf("%s: written bytes differ from opm's", f)
		}
		yf := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(f))), "migrate-yaml", filepath.Base(filepath.Dir(f)), "catalog.yaml")
		if want, err := os.ReadFile(yf); err == nil && filepath.Base(filepath.Dir(filepath.Dir(f))) == "migrate" {
			out.Reset()
			if err := Write(&out, c, YAML); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s: YAML differs from opm's", yf)
			}
		}
	}
}
