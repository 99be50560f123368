// Package fbcbackend answers api.Registry queries from a File-Based Catalog the way `opm serve`
// (operator-registry v1.72/v1.73) does, field by field (see grpc-semantics.md §1-2).
//
// The catalog is read once, as a stream: blobs are validated and bundles converted to their API
// form as they go by, and only an index (packages, channels, upgrade edges, each bundle's small
// fields) stays in memory. Bundle manifests go to a body store on disk and are read per request.
// With a cache directory the index and the store are kept there and reused as long as the
// catalog's digest is unchanged.
package fbcbackend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// Options configure Open.
type Options struct {
	// CacheDir keeps the index and bodies between runs. "" builds them in a temporary directory
	// that Close removes.
	CacheDir string
	// Logger receives progress records; nil discards.
	Logger *slog.Logger
}

// Backend serves one catalog. It implements api.Backend and api.CustomSchemaLister.
type Backend struct {
	ix      *index
	pkgs    map[string]*pkgIndex
	list    []listKey
	store   *storeReader
	tempDir string // removed by Close
}

var (
	_ api.Backend            = (*Backend)(nil)
	_ api.CustomSchemaLister = (*Backend)(nil)
	_ api.RawBundleLister    = (*Backend)(nil)
)

// Open makes the catalog at root (a directory or a single file) ready to serve. With a cache
// directory it uses the cache when it was built from this very catalog, and otherwise rebuilds it;
// a cache that does not match and cannot be rebuilt (read-only directory) is an error, never
// served. A catalog that fails validation gives an *InvalidCatalogError listing every problem.
func Open(ctx context.Context, root string, o Options) (*Backend, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("open catalog: %w", err)
	}
	if o.CacheDir == "" {
		tmp, err := os.MkdirTemp("", "olmcat-serve-cache-")
		if err != nil {
			return nil, fmt.Errorf("create temporary cache directory: %w", err)
		}
		b, err := buildAndOpen(ctx, root, tmp, false, log)
		if err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		b.tempDir = tmp
		return b, nil
	}
	start := time.Now()
	digest, err := catalogDigest(root)
	if err != nil {
		return nil, err
	}
	ix, store, err := readCache(o.CacheDir, digest)
	if err == nil {
		log.Info("loaded catalog cache", "dir", o.CacheDir, "packages", len(ix.Packages), "bundles", len(ix.Bundles), "duration", time.Since(start))
		return newBackend(ix, store), nil
	}
	if !errors.Is(err, errCacheMismatch) && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot use cache directory %s: %w (--cache-dir must be a directory this user can read, "+
			"and write when the cache has to be built)", o.CacheDir, err)
	}
	log.Info("cache must be (re)built", "dir", o.CacheDir, "reason", err.Error())
	b, berr := buildAndOpen(ctx, root, o.CacheDir, true, log)
	if berr != nil {
		var invalid *InvalidCatalogError
		if errors.As(berr, &invalid) || errors.Is(berr, context.Canceled) {
			return nil, berr
		}
		return nil, fmt.Errorf("cache %s does not match catalog %s (%v) and cannot be rebuilt: %w; "+
			"build it where it is writable with `olmcat serve %s --cache-dir %s --cache-only`", o.CacheDir, root, err, berr, root, o.CacheDir)
	}
	return b, nil
}

// BuildCache builds (or verifies and keeps) the cache for root in dir without serving: what
// `--cache-only` does at image build time.
func BuildCache(ctx context.Context, root, dir string, log *slog.Logger) error {
	b, err := Open(ctx, root, Options{CacheDir: dir, Logger: log})
	if err != nil {
		return err
	}
	return b.Close()
}

func buildAndOpen(ctx context.Context, root, dir string, durable bool, log *slog.Logger) (*Backend, error) {
	start := time.Now()
	digest, err := catalogDigest(root)
	if err != nil {
		return nil, err
	}
	w, err := newCacheWriter(dir, durable)
	if err != nil {
		return nil, fmt.Errorf("create cache in %s: %w", dir, err)
	}
	ix, err := buildIndex(ctx, root, w.store)
	if err != nil {
		w.abort()
		return nil, err
	}
	if err := w.commit(ix, digest); err != nil {
		w.abort()
		return nil, fmt.Errorf("write cache in %s: %w", dir, err)
	}
	store, err := openStore(filepath.Join(dir, cacheSubdir, bodiesFile))
	if err != nil {
		return nil, err
	}
	log.Info("built catalog cache", "dir", dir, "packages", len(ix.Packages), "bundles", len(ix.Bundles), "duration", time.Since(start))
	return newBackend(ix, store), nil
}

func newBackend(ix *index, store *storeReader) *Backend {
	b := &Backend{ix: ix, store: store}
	b.pkgs = ix.link()
	b.list = ix.listOrder()
	return b
}

// Close closes the body store and removes a temporary cache.
func (b *Backend) Close() error {
	err := b.store.close()
	if b.tempDir != "" {
		err = errors.Join(err, os.RemoveAll(b.tempDir))
	}
	return err
}
