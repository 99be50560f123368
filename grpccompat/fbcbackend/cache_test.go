package fbcbackend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/readonlytest"

	"github.com/google/go-cmp/cmp"
	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
)

func openCached(t *testing.T, root, cache string) *Backend {
	t.Helper()
	b, err := Open(context.Background(), Dir(root), Options{CacheDir: cache})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func cacheFile(cache, name string) string { return filepath.Join(cache, cacheSubdir, name) }

func TestChangedCatalogRebuildsCache(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	cache := t.TempDir()
	openCached(t, root, cache)
	pkgFile := filepath.Join(root, generate.PackageName(0), "catalog.json")
	data, err := os.ReadFile(pkgFile)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"defaultChannel": "stable"`, `"defaultChannel": "fast"`, 1)
	if changed == string(data) {
		t.Fatal("test setup: default channel not found in the generated file")
	}
	if err := os.WriteFile(pkgFile, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	b := openCached(t, root, cache)
	p, err := b.GetPackage(context.Background(), generate.PackageName(0))
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultChannelName != "fast" {
		t.Errorf("default channel %q after the catalog changed: a stale cache was served", p.DefaultChannelName)
	}
}

func TestDamagedCacheIsRebuiltOrReported(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	cache := t.TempDir()
	openCached(t, root, cache)

	// A truncated bodies file does not match the index header: rebuilt at the next start.
	if err := os.Truncate(cacheFile(cache, bodiesFile), 10); err != nil {
		t.Fatal(err)
	}
	b := openCached(t, root, cache)
	if _, err := b.GetBundleForChannel(context.Background(), generate.PackageName(0), "stable"); err != nil {
		t.Fatalf("after rebuilding a truncated cache: %v", err)
	}

	// Bytes flipped in place (same size) after the cache was verified at start are caught by the
	// record checksums when read.
	path := cacheFile(cache, bodiesFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] ^= 0xff
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = b.GetBundleForChannel(context.Background(), generate.PackageName(0), "stable")
	if err == nil || !strings.Contains(err.Error(), "corrupted") {
		t.Errorf("reading a damaged cache record: %v; want a corruption error", err)
	}
	err = b.ListBundles(context.Background(), func(*api.Bundle) error { return nil })
	if err != nil {
		t.Errorf("ListBundles needs no bodies for bundles with images, got %v", err)
	}
}

func TestStaleCacheInReadOnlyDirIsRefused(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	cache := t.TempDir()
	openCached(t, root, cache)
	if err := os.WriteFile(filepath.Join(root, "extra.json"), []byte(`{"schema":"my.schema","x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	readonlytest.Make(t, cacheFile(cache, ""), cache)
	_, err := Open(context.Background(), Dir(root), Options{CacheDir: cache})
	if err == nil || !strings.Contains(err.Error(), "building it failed") || !strings.Contains(err.Error(), "--cache-only") {
		t.Fatalf("stale cache in a read-only directory: %v; want a refusal saying how to rebuild it", err)
	}
}

// treeState lists every path under dir with its size and modification time.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		state[path] = fmt.Sprint(info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// With EnforceIntegrity a missing, stale or damaged cache is refused and left exactly as it was;
// an intact one is served.
func TestEnforcedIntegrityNeverBuilds(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	enforce := func(cache string) (*Backend, error) {
		return Open(context.Background(), Dir(root), Options{CacheDir: cache, EnforceIntegrity: true})
	}
	refused := func(what, cache, reason string) {
		t.Helper()
		before := treeState(t, cache)
		b, err := enforce(cache)
		if err == nil {
			b.Close()
			t.Fatalf("%s: served", what)
		}
		var ce *CacheError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), reason) ||
			!strings.Contains(err.Error(), "--cache-only") || !strings.Contains(err.Error(), "--cache-enforce-integrity=false") {
			t.Errorf("%s: %v; want a *CacheError saying %q and how to build the cache", what, err, reason)
		}
		if after := treeState(t, cache); !cmp.Equal(before, after) {
			t.Errorf("%s: the cache directory changed:\n%s", what, cmp.Diff(before, after))
		}
	}

	empty := t.TempDir()
	refused("empty cache directory", empty, "no cache has been built there")

	cache := t.TempDir()
	openCached(t, root, cache).Close()
	b, err := enforce(cache)
	if err != nil {
		t.Fatalf("intact cache: %v", err)
	}
	if _, err := b.GetBundleForChannel(context.Background(), generate.PackageName(0), "stable"); err != nil {
		t.Errorf("serving an intact cache: %v", err)
	}
	b.Close()

	if err := os.WriteFile(filepath.Join(root, "extra.json"), []byte(`{"schema":"my.schema","x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	refused("cache of an older catalog", cache, "does not match the catalog")

	openCached(t, root, cache).Close()
	if err := os.Truncate(cacheFile(cache, bodiesFile), 10); err != nil {
		t.Fatal(err)
	}
	refused("truncated cache", cache, "cache is damaged")
}
