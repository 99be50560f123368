// Package opmcache writes the serve cache of `opm serve` (operator-registry v1.73.0, pkg/cache)
// natively, in opm's json format, byte for byte as `opm serve CONFIGS --cache-dir DIR
// --cache-only` writes it into an empty directory that already holds a json cache, so that an
// image on opm's base can carry it and `opm serve --cache-enforce-integrity` accepts it. No opm
// binary and no emulation of the image's platform are needed: the cache is the same on every
// platform.
//
// Why json and not pogreb.v1, opm's preferred format: a pogreb database is not reproducible (its
// index is hashed with a seed drawn at random each time a database is created), and opm serves
// an existing json cache as readily as a pogreb one (getBackend takes the first format whose files
// are present). The json cache verifies at start by hashing bytes, where pogreb re-parses the
// whole catalog (grpc-semantics.md §4.3-4.4).
//
// Layout under DIR (opm's json backend, pkg/cache/json.go):
//
//	digest                                  16 hex digits, FNV-64a (see Digest); no newline
//	cache/packages.json                     encoding/json of opm's package index
//	cache/<pkg>_<channel>_<bundle>.json     encoding/json of api.Bundle, one per channel entry
//	cache/metas/<schema>/<pkg>/<fnv>.json   custom-schema blobs, normalized, newline-terminated
//
// Directories are 0750 and files 0640 whatever the umask, as opm writes them (it builds with
// umask 0).
package opmcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
)

const (
	dirMode  fs.FileMode = 0o750 // opm's jsonCacheModeDir
	fileMode fs.FileMode = 0o640 // opm's jsonCacheModeFile

	digestFile   = "digest"
	cacheSubdir  = "cache"
	packagesFile = "packages.json"
	metasDir     = "metas"
)

// Options configure Write.
type Options struct {
	// Logger receives a record when the cache is written; nil discards.
	Logger *slog.Logger
}

// RefusedError is a catalog opm's cache build refuses (or would write unreadably), with opm's
// reason and the blob, package, channel or bundle it is about.
type RefusedError struct {
	Catalog string
	Reason  string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("catalog %s cannot get opm's serve cache: %s", e.Catalog, e.Reason)
}

// Write builds opm's serve cache for the catalog at configsDir into cacheDir.
//
// configsDir must be the catalog exactly as it will lie at /configs in the image: the digest
// covers the bytes, names, sizes and permission bits of every file and directory in it (the
// directory itself included), so the image layer must keep them. cacheDir (what goes at
// /tmp/cache) must not exist or be empty; it is written in a sibling temporary directory and
// renamed into place, so nothing is left there on error. A catalog that olmcat's validation
// refuses is a *fbcbackend.InvalidCatalogError, one opm's cache build refuses a *RefusedError.
func Write(ctx context.Context, configsDir, cacheDir string, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	start := time.Now()
	if err := checkEmpty(cacheDir); err != nil {
		return err
	}
	info, err := os.Stat(configsDir)
	if err != nil {
		return fmt.Errorf("open catalog: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("catalog %s is a file: opm serves a directory at /configs, and its cache covers that directory", configsDir)
	}
	backend, err := fbcbackend.Open(ctx, fbcbackend.Dir(configsDir), fbcbackend.Options{Logger: log})
	if err != nil {
		return err
	}
	defer backend.Close()

	parent := filepath.Dir(cacheDir)
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(cacheDir)+".opmcache-")
	if err != nil {
		return fmt.Errorf("create opm cache next to %s: %w", cacheDir, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	w := &writer{catalog: configsDir, base: tmp, backend: backend}
	n, err := w.write(ctx)
	if err != nil {
		return err
	}
	digest, err := Digest(configsDir, tmp)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, digestFile), []byte(digest)); err != nil {
		return err
	}
	if err := os.Chmod(tmp, dirMode); err != nil {
		return err
	}
	if err := os.Remove(cacheDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replace empty cache directory %s: %w", cacheDir, err)
	}
	if err := os.Rename(tmp, cacheDir); err != nil {
		return fmt.Errorf("move opm cache into %s: %w", cacheDir, err)
	}
	done = true
	log.Info("wrote opm serve cache", "dir", cacheDir, "format", "json", "digest", digest, "bundleFiles", n, "duration", time.Since(start))
	return nil
}

// checkEmpty refuses a cacheDir that holds anything: Write never mixes its files with others.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cache directory %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("cache directory %s is not empty; give a new or empty directory for opm's cache", dir)
	}
	return nil
}

type writer struct {
	catalog string
	base    string
	backend *fbcbackend.Backend
}

// bundleKey is one channel entry: one file of opm's cache.
type bundleKey struct{ pkg, channel, name string }

func (k bundleKey) file() string { return fmt.Sprintf("%s_%s_%s.json", k.pkg, k.channel, k.name) }

func (w *writer) write(ctx context.Context) (int, error) {
	cacheDir := filepath.Join(w.base, cacheSubdir)
	if err := mkdir(cacheDir); err != nil {
		return 0, err
	}
	pkgs := w.backend.IndexPackages()
	keys, err := w.bundleKeys(pkgs)
	if err != nil {
		return 0, err
	}
	if err := w.writeMetas(ctx, cacheDir); err != nil {
		return 0, err
	}
	if err := w.writeBundles(ctx, cacheDir, keys); err != nil {
		return 0, err
	}
	data, err := json.Marshal(packageIndex(pkgs))
	if err != nil {
		return 0, fmt.Errorf("encode package index: %w", err)
	}
	if err := writeFile(filepath.Join(cacheDir, packagesFile), data); err != nil {
		return 0, err
	}
	return len(keys), nil
}

// bundleKeys lists every channel entry and refuses names opm's json cache cannot hold: opm builds
// the file name as <package>_<channel>_<bundle>.json, so a "/" sends the file into a directory
// that does not exist (opm's build fails), and two entries whose names join into one file
// overwrite each other in an order that changes from run to run.
func (w *writer) bundleKeys(pkgs []fbcbackend.IndexPackage) ([]bundleKey, error) {
	var keys []bundleKey
	seen := map[string]bundleKey{}
	for _, p := range pkgs {
		for _, c := range p.Channels {
			for _, e := range c.Entries {
				k := bundleKey{p.Name, c.Name, e.Name}
				if strings.ContainsRune(k.pkg+k.channel+k.name, '/') {
					return nil, &RefusedError{Catalog: w.catalog, Reason: fmt.Sprintf(
						"package %q, channel %q, bundle %q: a name holds \"/\", and opm's json cache stores each channel entry in the file <package>_<channel>_<bundle>.json (opm's own build fails on it: no such directory); rename the channel or bundle", k.pkg, k.channel, k.name)}
				}
				if other, dup := seen[k.file()]; dup {
					return nil, &RefusedError{Catalog: w.catalog, Reason: fmt.Sprintf(
						"package %q: channel %q bundle %q and channel %q bundle %q both map to opm's cache file %s (names joined by \"_\"), and opm keeps whichever it writes last; rename one channel or bundle", k.pkg, other.channel, other.name, k.channel, k.name, k.file())}
				}
				seen[k.file()] = k
				keys = append(keys, k)
			}
		}
	}
	return keys, nil
}

// writeBundles writes one api.Bundle per channel entry on GOMAXPROCS workers; each holds one
// bundle at a time.
func (w *writer) writeBundles(ctx context.Context, cacheDir string, keys []bundleKey) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan bundleKey)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				b, err := w.backend.StoredBundle(k.pkg, k.channel, k.name)
				if err != nil {
					fail(err)
					continue
				}
				data, err := json.Marshal(b)
				if err != nil {
					fail(fmt.Errorf("package %q, channel %q, bundle %q: encode: %w", k.pkg, k.channel, k.name, err))
					continue
				}
				if err := writeFile(filepath.Join(cacheDir, k.file()), data); err != nil {
					fail(err)
				}
			}
		}()
	}
feed:
	for _, k := range keys {
		select {
		case <-ctx.Done():
			break feed
		case jobs <- k:
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// writeMetas writes the custom-schema blobs as opm's PutMeta does: under metas/<schema>/<package>
// (metas/<schema> for blobs with no package), named by the FNV-64a of the blob, which is opm's
// normalized blob: olmcat's normalization plus the newline json.Encoder ends it with. Identical
// blobs of one (schema, package) make one file.
func (w *writer) writeMetas(ctx context.Context, cacheDir string) error {
	made := map[string]bool{}
	return w.backend.WalkCustomSchemaBlobs(ctx, func(schema, pkg string, normalized []byte) error {
		// The schema was checked when the catalog was read (*fbcbackend.InvalidCatalogError).
		if pkg != "" && !api.ValidCustomSchemaName(pkg) {
			return &RefusedError{Catalog: w.catalog, Reason: fmt.Sprintf(
				"a blob of schema %q names package %q: invalid custom schema meta: invalid packageName %q: must match %s (opm serve refuses such catalogs; fix the package name or list the file in .indexignore)",
				schema, pkg, pkg, api.CustomSchemaName.String())}
		}
		dir := filepath.Join(cacheDir, metasDir, schema, pkg)
		if !made[dir] {
			if err := mkdirAll(cacheDir, filepath.Join(metasDir, schema, pkg)); err != nil {
				return err
			}
			made[dir] = true
		}
		blob := append(normalized[:len(normalized):len(normalized)], '\n')
		h := fnv.New64a()
		h.Write(blob)
		return writeFile(filepath.Join(dir, fmt.Sprintf("%x.json", h.Sum64())), blob)
	})
}

// mkdir creates dir with opm's mode whatever the umask.
func mkdir(dir string) error {
	if err := os.Mkdir(dir, dirMode); err != nil {
		return err
	}
	return os.Chmod(dir, dirMode)
}

// mkdirAll creates every missing directory of rel under base with opm's mode.
func mkdirAll(base, rel string) error {
	dir := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "" {
			continue
		}
		dir = filepath.Join(dir, part)
		if err := mkdir(dir); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// writeFile writes (or, for a repeated meta blob, rewrites) one file with opm's mode whatever the
// umask.
func writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(fileMode); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
