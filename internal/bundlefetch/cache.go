package bundlefetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

// The cache keeps one entry per pulled bundle image under DIR/bundles, a directory named by the
// digest the image reference resolved to (the manifest or multi-arch index digest: the key) and
// the platform. An entry is an OCI image layout holding what can be verified from the key: the
// index or manifest blob (hashes to the key), the platform's manifest (hashes to its digest in the
// index), the config (to its digest in the manifest) and the layers the bundle was read from (their
// blobs to the manifest). A hit reads the entry as an oci-layout: image through package
// indeximage, with every check and every limit of a pull, and renders the bundle as a pull does:
// whoever can write the cache (a CI cache shared between jobs and pull requests) cannot change the
// bundle an entry yields; an entry that does not verify is reported, ignored and pulled again.
//
// No rendered bundle is kept beside the blobs: nothing in the cache could prove it was rendered
// from them (a checksum beside it is rewritten with it; a signature needs a key the cache
// writer does not have, which a CI job restoring the cache does not have either), so a hit
// extracts and renders the bundle again.
//
// The cache is bounded by use: an entry's modification time is the last time a run used it
// (written, or read: touched on every hit), and a run that uses the cache first removes the
// entries no run has used for Options.MaxAge. A CI cache that is saved after every job thus holds
// the bundles of the templates it still renders, not of every bundle it ever pulled. Entries of the
// format of earlier versions (one JSON file of the rendered bundle each) are removed whatever
// their age: they are never read.

const cacheSubdir = "bundles"

type cache struct {
	dir      string // DIR/bundles
	platform string
}

// isEntryName reports whether a directory of the cache is an entry (not a temporary directory of
// a write in progress, nor anything else).
func isEntryName(name string) bool {
	return strings.HasPrefix(name, "sha256-") && strings.Count(name, "-") >= 2 && !strings.Contains(name, ".")
}

// isOldEntryName reports whether a file of the cache is an entry of the earlier format.
func isOldEntryName(name string) bool {
	return strings.HasPrefix(name, "sha256-") && strings.HasSuffix(name, ".json") && strings.Count(name, "-") >= 2
}

// prune removes the entries not used since before now-maxAge (none when maxAge is 0) and the
// entries of the earlier format, and says how many of each it removed. Entries that cannot be
// removed are left; a cache that does not exist yet has nothing to prune.
func (c *cache) prune(maxAge time.Duration, now time.Time) (unused, old int, err error) {
	entries, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	} else if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		p := filepath.Join(c.dir, e.Name())
		switch {
		case e.Type().IsRegular() && isOldEntryName(e.Name()):
			if os.Remove(p) == nil {
				old++
			}
		case e.IsDir() && isEntryName(e.Name()) && maxAge > 0:
			info, err := e.Info()
			if err == nil && now.Sub(info.ModTime()) > maxAge && os.RemoveAll(p) == nil {
				unused++
			}
		}
	}
	return unused, old, nil
}

func (c *cache) entry(digest v1.Hash) string {
	plat := strings.NewReplacer("/", "_", ":", "_").Replace(c.platform)
	return filepath.Join(c.dir, digest.Algorithm+"-"+digest.Hex+"-"+plat)
}

// errCorrupt marks an entry that exists but does not verify.
var errCorrupt = errors.New("corrupt cache entry")

// load renders the bundle of the entry of digest (ref is how messages name it), unless it has no entry (ok false). An error
// wraps errCorrupt when the entry is there but does not verify, or does not hold a bundle.
func (c *cache) load(ctx context.Context, ref string, digest v1.Hash, opts indeximage.Options) (b fbc.Bundle, ok bool, err error) {
	dir := c.entry(digest)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fbc.Bundle{}, false, nil
	} else if err != nil {
		return fbc.Bundle{}, false, err
	}
	if !fi.IsDir() {
		return fbc.Bundle{}, true, fmt.Errorf("%w: %s is not a directory", errCorrupt, dir)
	}
	opts.Platform = c.platform
	img, err := indeximage.FetchBundle(ctx, indeximage.OCILayoutPrefix+dir+"@"+digest.String(), opts)
	if err == nil {
		b, err = renderBundle(ref, img)
	}
	if err != nil {
		if ctx.Err() != nil {
			return fbc.Bundle{}, true, ctx.Err()
		}
		return fbc.Bundle{}, true, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // used now; a read-only cache is still read
	return b, true, nil
}

// renderBundle renders an extracted bundle as opm renders a bare bundle directory (no image:
// bundledir.WithImage adds the reference it is pulled by).
func renderBundle(ref string, img *indeximage.Bundle) (fbc.Bundle, error) {
	b, err := source.ParseImageBundle(ref, img)
	if err != nil {
		return fbc.Bundle{}, err
	}
	return b.Render("")
}

// newEntry prepares the entry of digest, written on Commit (atomically: a temporary directory,
// then a rename that replaces an entry that did not verify).
func (c *cache) newEntry(digest v1.Hash) (*atomicout.Target, error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	// An entry that is not a directory (a symbolic link put there, a file) is removed first:
	// atomicout would replace what a link points to and keep the link, so the entry would be
	// "repaired" on every run and never replaced, and a link's target is no business of the cache.
	dir := c.entry(digest)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		if err := os.Remove(dir); err != nil {
			return nil, err
		}
	}
	return atomicout.Dir(dir, true)
}
