package fbc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// A blob the loader would refuse is never written, in either format and on either path of Write:
// olmcat must not make a catalog it cannot read back.
func TestWriteRefusesBlobsTheLoaderRefuses(t *testing.T) {
	huge := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), DefaultMaxBlobSize))
	value, _ := json.Marshal(map[string]string{"data": huge})
	c := &Catalog{
		Packages: []Package{{Schema: SchemaPackage, Name: "p", DefaultChannel: "c"}},
		Bundles: []Bundle{{Schema: SchemaBundle, Package: "p", Name: "p.v1",
			Properties: []Property{{Type: "olm.bundle.object", Value: value}}}},
	}
	for _, f := range []Format{JSON, YAML} {
		err := Write(io.Discard, c, f)
		var tooLarge *BlobTooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Name != "p.v1" || !strings.Contains(err.Error(), "larger than the 64 MiB olmcat reads") {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Just under the limit is written and reads back.
	c.Bundles[0].Properties[0].Value, _ = json.Marshal(map[string]string{"data": huge[:DefaultMaxBlobSize-4096]})
	var out bytes.Buffer
	if err := Write(&out, c, JSON); err != nil {
		t.Fatal(err)
	}
	if back, err := LoadReader(&out, "written"); err != nil || len(back.Bundles) != 1 {
		t.Errorf("read back: %v", err)
	}
}
