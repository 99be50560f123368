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
	"sync"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/internal/scratch"
)

// Options configure Open.
type Options struct {
	// CacheDir keeps the index and bodies between runs. "" builds them in a temporary directory
	// that Close removes.
	CacheDir string
	// EnforceIntegrity serves only a cache that was built from this very catalog and is intact: a
	// missing, stale or damaged cache is a *CacheError, and nothing is built or written (opm's
	// --cache-enforce-integrity, for images whose cache was built at image build time).
	EnforceIntegrity bool
	// Logger receives progress records; nil discards.
	Logger *slog.Logger
	// Reproducible writes the bodies in catalog order, converting one bundle at a time, so that
	// the same catalog gives the same cache bytes (an image's cache layer, olmcat build); by
	// default bundles are converted in parallel and stored as they come.
	Reproducible bool
}

// Backend serves one catalog. It implements api.Backend and api.CustomSchemaLister.
type Backend struct {
	ix         *index
	pkgs       map[string]*pkgIndex
	list       []listKey
	store      *storeReader
	removeTemp func() error // removes a temporary cache; nil with a cache directory

	lookupsOnce  sync.Once
	entryLookups *entryLookups
	cacheUse     CacheUse
}

// CacheUse is what became of the cache directory when a backend opened.
type CacheUse int

const (
	CacheNone  CacheUse = iota // no cache directory: a temporary index
	CacheHit                   // the cache was built from this catalog and intact: reused
	CacheBuilt                 // the cache was missing, stale or damaged: (re)built
)

// CacheUse says whether the backend was loaded from its cache or (re)built it.
func (b *Backend) CacheUse() CacheUse { return b.cacheUse }

// Counts are the packages and bundles the backend serves.
func (b *Backend) Counts(context.Context) (packages, bundles int, err error) {
	return len(b.ix.Packages), len(b.ix.Bundles), nil
}

var (
	_ api.Backend            = (*Backend)(nil)
	_ api.CustomSchemaLister = (*Backend)(nil)
	_ api.RawBundleLister    = (*Backend)(nil)
)

// Input is the catalog a backend serves.
type Input struct {
	// Name is how messages name the catalog.
	Name string
	// Walk hands over every blob of the catalog, as fbc.Walk does.
	Walk func(ctx context.Context, fn func(fbc.Blob) error) error
	// Digest changes whenever what Walk gives may change; a cache is reused only for its digest.
	Digest func() (string, error)
}

// Dir is the Input of the File-Based Catalog at root (a directory or a file), read as is.
func Dir(root string) Input {
	return Input{
		Name: root,
		Walk: func(_ context.Context, fn func(fbc.Blob) error) error { return fbc.Walk(root, fn) },
		Digest: func() (string, error) {
			if _, err := os.Stat(root); err != nil {
				return "", fmt.Errorf("open catalog: %w", err)
			}
			return FilesDigest(root)
		},
	}
}

// Open makes the catalog ready to serve. With a cache
// directory it uses the cache when it was built from this very catalog and its files match their
// checksums, and otherwise rebuilds it; a stale or damaged cache that cannot be rebuilt (read-only
// directory) is an error, never served. A catalog that fails validation gives an *InvalidCatalogError listing every problem.
// Errors about the cache do not wrap the fs errors under them: callers would take a permission
// problem of the cache directory for one of the catalog.
func Open(ctx context.Context, in Input, o Options) (*Backend, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	removeStale(os.TempDir(), tempCachePrefix, log)
	if o.CacheDir == "" {
		return openTemp(ctx, in, log)
	}
	removeStale(o.CacheDir, buildDirPrefix, log)
	start := time.Now()
	digest, err := in.Digest()
	if err != nil {
		return nil, err
	}
	ix, store, err := readCache(ctx, o.CacheDir, digest)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err == nil {
		log.Info("loaded catalog cache", "dir", o.CacheDir, "packages", len(ix.Packages), "bundles", len(ix.Bundles), "duration", time.Since(start))
		b := newBackend(ix, store)
		b.cacheUse = CacheHit
		return b, nil
	}
	damagedCache := errors.Is(err, errCacheDamaged)
	missing := errors.Is(err, fs.ErrNotExist)
	if !damagedCache && !missing && !errors.Is(err, errCacheMismatch) {
		return nil, &CacheError{Dir: o.CacheDir, Reason: err.Error(),
			Hint: "--cache-dir must be a directory this user can read, and write when the cache has to be built"}
	}
	rebuild := fmt.Sprintf("build it with `olmcat serve %s --cache-dir %s --cache-only`", in.Name, o.CacheDir)
	if o.EnforceIntegrity {
		reason := err.Error()
		if missing {
			reason = "no cache has been built there"
		}
		return nil, &CacheError{Dir: o.CacheDir, Reason: "integrity check failed: " + reason,
			Hint: rebuild + " (at image build time), or pass --cache-enforce-integrity=false to build it at start"}
	}
	if damagedCache {
		log.Warn("cache is damaged; rebuilding it", "dir", o.CacheDir, "reason", err.Error())
	} else {
		log.Info("cache must be (re)built", "dir", o.CacheDir, "reason", err.Error())
	}
	b, berr := buildAndOpen(ctx, in, o.CacheDir, digest, log, o.Reproducible)
	if berr != nil {
		var invalid *InvalidCatalogError
		if errors.As(berr, &invalid) || errors.Is(berr, context.Canceled) {
			return nil, berr
		}
		reason := err.Error()
		if missing {
			reason = "no cache has been built there"
		}
		return nil, &CacheError{Dir: o.CacheDir, Reason: fmt.Sprintf("%s, and building it failed: %s", reason, fsCause(berr, o.CacheDir)),
			Hint: rebuild + " where the directory is writable and has room"}
	}
	return b, nil
}

// fsCause says what went wrong in err once: a file system error as its cause and the file, relative
// to dir (which the message names already), instead of the chain of wrappers that repeat the path.
func fsCause(err error, dir string) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	name := pe.Path
	if rel, rerr := filepath.Rel(dir, name); rerr == nil && filepath.IsLocal(rel) {
		name = rel
	}
	return fmt.Sprintf("%v (%s %s)", pe.Err, pe.Op, name)
}

// CacheError is a cache directory that cannot be served. It is about the cache, never the
// catalog, and wraps no fs error: callers would take a permission problem of the cache
// directory for one of the catalog.
type CacheError struct {
	Dir, Reason, Hint string
}

func (e *CacheError) Error() string {
	return fmt.Sprintf("cache %s cannot be served: %s; %s", e.Dir, e.Reason, e.Hint)
}

// BuildCache builds (or verifies and keeps) the cache for the catalog in dir without serving: what
// `--cache-only` does at image build time.
func BuildCache(ctx context.Context, in Input, dir string, log *slog.Logger) error {
	b, err := Open(ctx, in, Options{CacheDir: dir, Logger: log})
	if err != nil {
		return err
	}
	return b.Close()
}

// openTemp builds the index and the body store in a temporary directory that Close removes. Nobody
// will reuse them: no catalog digest, no index file, no checksums.
func openTemp(ctx context.Context, in Input, log *slog.Logger) (*Backend, error) {
	start := time.Now()
	tmp, remove, err := scratch.MkdirTemp("", tempCachePrefix)
	if err != nil {
		return nil, err // a *scratch.CreateError, which says where and what to do
	}
	fail := func(err error) (*Backend, error) {
		remove()
		return nil, err
	}
	path := filepath.Join(tmp, bodiesFile)
	w, err := createStore(path, false)
	if err != nil {
		return fail(fmt.Errorf("create temporary cache: %v", err))
	}
	ix, err := buildIndex(ctx, in, w, false)
	if err != nil {
		w.abort()
		return fail(err)
	}
	if _, _, err := w.finish(false); err != nil {
		return fail(fmt.Errorf("write temporary cache %s: %v", path, err))
	}
	store, err := openStore(path)
	if err != nil {
		return fail(fmt.Errorf("open temporary cache: %v", err))
	}
	log.Info("loaded catalog", "packages", len(ix.Packages), "bundles", len(ix.Bundles), "duration", time.Since(start))
	b := newBackend(ix, store)
	b.removeTemp = remove
	return b, nil
}

// buildAndOpen builds the cache of the catalog with the given digest in dir and opens it.
func buildAndOpen(ctx context.Context, in Input, dir, digest string, log *slog.Logger, reproducible bool) (*Backend, error) {
	start := time.Now()
	w, err := newCacheWriter(dir)
	if err != nil {
		return nil, fmt.Errorf("create cache: %w", err)
	}
	ix, err := buildIndex(ctx, in, w.store, reproducible)
	if err != nil {
		w.abort()
		return nil, err
	}
	if err := w.commit(ix, digest); err != nil {
		w.abort()
		return nil, fmt.Errorf("write cache: %w", err)
	}
	store, err := openStoreIn(dir, cacheSubdir, bodiesFile)
	if err != nil {
		return nil, fmt.Errorf("open cache: %v", err)
	}
	log.Info("built catalog cache", "dir", dir, "packages", len(ix.Packages), "bundles", len(ix.Bundles), "duration", time.Since(start))
	b := newBackend(ix, store)
	b.cacheUse = CacheBuilt
	return b, nil
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
	if b.removeTemp != nil {
		err = errors.Join(err, b.removeTemp())
	}
	return err
}
