package bundlefetch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/indeximage"
)

// A cache entry is read from disk, where anyone who can write the cache may have put anything:
// whatever bytes one of its files holds, a hit yields exactly the bundle the image holds, or the
// entry is damaged (errCorrupt); never another bundle, never a panic.
func FuzzCacheEntry(f *testing.F) {
	if _, err := os.Stat(benchBundle); err != nil {
		f.Skip("the template conformance corpus is not at " + benchBundle)
	}
	host := imagetest.Registry(f)
	ref := host + "/fuzz/bundle:v1"
	imagetest.Push(f, ref, imagetest.BundleImage(f, benchBundle))
	cacheDir := f.TempDir()
	fetcher, err := New(Options{CacheDir: cacheDir})
	if err != nil {
		f.Fatal(err)
	}
	want, err := fetcher.RenderBundles(context.Background(), []string{ref})
	if err != nil {
		f.Fatal(err)
	}
	res, err := indeximage.ResolveDigest(context.Background(), ref, indeximage.Options{})
	if err != nil {
		f.Fatal(err)
	}
	c := fetcher.cache
	e := readEntry(f, c.entry(res.Digest))
	files := append([]string{e.index, e.manifest, e.config}, e.layers...)
	original := make([][]byte, len(files))
	for i, p := range files {
		if original[i], err = os.ReadFile(p); err != nil {
			f.Fatal(err)
		}
		if i < 3 { // the small files whole; the layer (136 kB) by patches, which the fuzzer minimizes fast
			f.Add(uint8(i), uint32(0), true, original[i])
		}
		f.Add(uint8(i), uint32(len(original[i])/2), true, []byte{})
		f.Add(uint8(i), uint32(len(original[i])/3), false, []byte{0xff})
	}
	f.Add(uint8(0), uint32(0), true, []byte(`{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"`+res.Digest.String()+`","size":1}]}`))
	f.Add(uint8(1), uint32(0), true, []byte(`{"schemaVersion":2,"config":{"digest":"sha256:0"},"layers":[]}`))
	wantJSON := marshal(f, want[0])
	// Each worker runs one input at a time: one entry serves them all, restored before each. The
	// file numbered which gets data at offset at, and ends there when cut.
	f.Fuzz(func(t *testing.T, which uint8, at uint32, cut bool, data []byte) {
		for i, p := range files {
			if err := os.WriteFile(p, original[i], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n := int(which) % len(files)
		orig := original[n]
		pos := int(at % uint32(len(orig)+1))
		changed := append(slices.Clone(orig[:pos]), data...)
		if !cut && pos+len(data) < len(orig) {
			changed = append(changed, orig[pos+len(data):]...)
		}
		if err := os.WriteFile(files[n], changed, 0o644); err != nil {
			t.Fatal(err)
		}
		b, ok, err := c.load(context.Background(), ref, res.Digest, indeximage.Options{})
		if !ok {
			t.Fatal("an entry that is there is reported missing")
		}
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v is not errCorrupt", err)
			}
			return
		}
		if got := marshal(t, bundledir.WithImage(b, ref)); !bytes.Equal(got, wantJSON) {
			t.Fatalf("file %d changed, and the entry yields another bundle:\n got %.300s\nwant %.300s", n, got, wantJSON)
		}
	})
}
