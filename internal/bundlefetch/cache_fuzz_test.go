package bundlefetch

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/fbc"
)

// A cache entry is read from disk, where anything may have happened to it: whatever its bytes, it
// is either a rendered bundle that hashes to its digest, or damaged (errCorrupt), never a panic.
func FuzzCacheEntry(f *testing.F) {
	digest := v1.Hash{Algorithm: "sha256", Hex: "0000000000000000000000000000000000000000000000000000000000000001"}
	c := &cache{dir: f.TempDir(), platform: "linux/amd64"}
	valid := fbc.Bundle{Schema: fbc.SchemaBundle, Name: "op.v1.0.0", Package: "op",
		Properties: []fbc.Property{{Type: "olm.package", Value: json.RawMessage(`{"packageName":"op","version":"1.0.0"}`)}}}
	if err := c.store(digest, valid); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(c.path(digest))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte(`{"schema":"olmcat.bundle-cache.v1","bundle":null}`))
	entry := c.path(digest) // each worker runs one input at a time: one file serves them all
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(entry, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, ok, err := c.load(digest)
		if !ok {
			t.Fatal("an entry that is there is reported missing")
		}
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v is not errCorrupt", err)
			}
			return
		}
		if b.Schema != fbc.SchemaBundle || b.Name == "" || b.Image != "" {
			t.Fatalf("loaded %+v", b)
		}
	})
}
