package fbcbackend

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// readIndexFile decodes a cache's index.gob: its header and its index.
func readIndexFile(t testing.TB, path string) (cacheHeader, *index) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(data)
	var hdr cacheHeader
	ix := &index{}
	if err := gob.NewDecoder(r).Decode(&hdr); err != nil {
		t.Fatal(err)
	}
	if err := gob.NewDecoder(r).Decode(ix); err != nil {
		t.Fatal(err)
	}
	return hdr, ix
}

// forgeIndexFile writes ix as the index of path with checksums that match: what whoever can write
// the cache can do.
func forgeIndexFile(t testing.TB, path string, hdr cacheHeader, ix *index) {
	t.Helper()
	var encoded, out bytes.Buffer
	if err := gob.NewEncoder(&encoded).Encode(ix); err != nil {
		t.Fatal(err)
	}
	hdr.IndexSize, hdr.IndexSum = int64(encoded.Len()), xxhash.Sum64(encoded.Bytes())
	if err := gob.NewEncoder(&out).Encode(hdr); err != nil {
		t.Fatal(err)
	}
	out.Write(encoded.Bytes())
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A forged index (checksums rewritten to match) naming a bundle that is not there, or a body
// beyond bodies.bin (a 4 GB allocation per request), is refused at start, never a panic.
func TestForgedCacheIndexIsRefused(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	for _, tc := range []struct {
		name   string
		forge  func(ix *index)
		reason string
	}{
		{"entry names a bundle beyond the index", func(ix *index) { ix.Packages[0].Channels[0].Entries[0].Bundle = len(ix.Bundles) + 1000 },
			"is not in the index"},
		{"body beyond bodies.bin", func(ix *index) { ix.Bundles[0].Body.Len = 1<<32 - 1 }, "lies outside bodies.bin"},
		{"negative offset", func(ix *index) { ix.Bundles[0].Body.Off = -1 }, "lies outside bodies.bin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			openCached(t, root, cache).Close()
			path := cacheFile(cache, indexFile)
			hdr, ix := readIndexFile(t, path)
			tc.forge(ix)
			forgeIndexFile(t, path, hdr, ix)
			_, err := Open(context.Background(), Dir(root), Options{CacheDir: cache, EnforceIntegrity: true})
			var ce *CacheError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), path) {
				t.Errorf("forged index: %v; want a *CacheError naming %s and saying %q", err, path, tc.reason)
			}
		})
	}
}

// An index that passes check can be served: whatever it holds, no query panics (the bodies are
// zeros, so a body read fails its checksum, with an error).
func FuzzCheckedIndexServes(f *testing.F) {
	small := &index{
		Packages: []*pkgIndex{{Name: "p", DefaultChannel: "c", Channels: []*channelIndex{{Name: "c", Head: "p.v2",
			Entries: []*entryIndex{{Name: "p.v1", Bundle: 0}, {Name: "p.v2", Replaces: "p.v1", Skips: []string{"p.v0"}, SkipRange: "<2.0.0", Bundle: 1}}}}}},
		Bundles: []*bundleIndex{{HasImage: true, Body: ref{Off: 0, Len: 10}, Provided: []gvk{{"g", "v1", "K"}}},
			{Body: ref{Off: 10, Len: 20}, Provided: []gvk{{"g", "v1", "K"}}}},
		Metas: []*metaGroup{{Schema: "s", Package: "p", Blobs: []ref{{Off: 30, Len: 2}}}},
	}
	for _, ix := range []*index{small, {}} {
		var seed bytes.Buffer
		if err := gob.NewEncoder(&seed).Encode(ix); err != nil {
			f.Fatal(err)
		}
		f.Add(seed.Bytes())
	}
	const bodiesSize = 1 << 16
	bodies := filepath.Join(f.TempDir(), bodiesFile)
	if err := os.WriteFile(bodies, make([]byte, bodiesSize), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ix := &index{}
		if gob.NewDecoder(bytes.NewReader(data)).Decode(ix) != nil || ix.check(bodiesSize) != nil {
			return
		}
		store, err := openStore(bodies)
		if err != nil {
			t.Fatal(err)
		}
		b := newBackend(ix, store)
		defer b.Close()
		ctx := context.Background()
		_ = b.ListBundles(ctx, func(*api.Bundle) error { return nil })
		_ = b.ListBundlesRaw(ctx, func(api.PreEncoded) error { return nil })
		for _, p := range ix.Packages {
			_, _ = b.GetPackage(ctx, p.Name)
			for _, c := range p.Channels {
				_, _ = b.GetBundleForChannel(ctx, p.Name, c.Name)
				for _, e := range c.Entries {
					_, _ = b.GetBundle(ctx, p.Name, c.Name, e.Name)
					_, _ = b.GetBundleThatReplaces(ctx, e.Name, p.Name, c.Name)
					_, _ = b.GetChannelEntriesThatReplace(ctx, e.Name)
				}
			}
		}
		for _, bi := range ix.Bundles {
			if bi != nil {
				for _, g := range bi.Provided {
					_, _ = b.GetDefaultBundleThatProvides(ctx, g.Group, g.Version, g.Kind)
					_, _ = b.GetLatestChannelEntriesThatProvide(ctx, g.Group, g.Version, g.Kind)
				}
			}
		}
		for _, g := range ix.Metas {
			_ = b.ListPackageCustomSchemas(ctx, g.Schema, g.Package, func(*structpb.Struct) error { return nil })
		}
	})
}

// Checking bodies.bin reads all of it, however large its forged header says it is: a signal
// (ctx ending) stops the check instead of waiting for the end of a sparse terabyte.
func TestCacheCheckStopsWithItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), bodiesFile)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const size = 1 << 40
	if err := os.Truncate(path, size); err != nil {
		t.Skipf("a sparse file of 1 TiB: %v", err)
	}
	store, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- store.verify(ctx, size, 0) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("verify after its context ended: %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("verify went on for a minute after its context ended")
	}
}
