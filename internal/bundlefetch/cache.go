package bundlefetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/nofollow"
	"github.com/olmcat/olmcat/internal/scratch"
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

//
// Whoever can write the cache can put links, FIFOs and devices in it, so nothing under DIR is
// reached through a link (package nofollow): DIR/bundles is opened once, a link or a file there
// is removed as what it is (a link to an input is never written into nor pruned through), an
// entry that is a link is corrupt and removed, and an entry's files are read only as regular
// files, non-blocking, their size bounded before reading (indeximage.FetchBundleIn). Entries are
// content-addressed: one another run committed meanwhile is kept (atomicout's CommitNew), so runs
// sharing a cache never swap an entry another one reads.

const cacheSubdir = "bundles"

type cache struct {
	dir      string // DIR/bundles
	platform string
	warn     func(format string, args ...any) // said once per Fetcher each

	mu      sync.Mutex
	root    *os.Root               // DIR/bundles, once opened
	corrupt map[string]fs.FileInfo // entries found not to verify, by name: replaced on commit
}

// bundles opens DIR/bundles, creating it when create is set (else a cache that does not exist
// yet is nil, no error). What is at DIR/bundles that is not a directory (a link to the input, a
// file) is not the cache: it is removed, never followed, and the directory made anew.
func (c *cache) bundles(create bool) (*os.Root, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root != nil {
		return c.root, nil
	}
	top := filepath.Dir(c.dir) // --cache-dir, as the user named it (a link there is theirs)
	if create {
		if err := os.MkdirAll(top, 0o755); err != nil {
			return nil, err
		}
	}
	parent, err := os.OpenRoot(top)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer parent.Close()
	fi, err := parent.Lstat(cacheSubdir)
	switch {
	case err == nil && !fi.IsDir():
		if err := parent.Remove(cacheSubdir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is %s, not a directory, and cannot be removed: %w", c.dir, nofollow.Describe(fi.Mode()), err)
		}
		if c.warn != nil {
			c.warn("bundle cache: %s was %s, not a directory: removed, never followed; the cache starts empty", c.dir, nofollow.Describe(fi.Mode()))
		}
		fallthrough
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return nil, nil
		}
		if err := parent.Mkdir(cacheSubdir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	root, err := nofollow.OpenDir(parent, cacheSubdir)
	if err != nil {
		return nil, err
	}
	c.root = root
	return root, nil
}

// samePath checks that the path DIR/bundles still names the directory opened: atomicout writes
// entries by path.
func (c *cache) samePath(root *os.Root) error {
	opened, err := root.Stat(".")
	if err != nil {
		return err
	}
	if now, err := os.Lstat(c.dir); err != nil || !os.SameFile(opened, now) {
		return fmt.Errorf("%s was replaced while in use (by a link or another directory): not written", c.dir)
	}
	return nil
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

// isSwapLeftover reports whether a directory of the cache is the previous copy of an entry that
// an earlier olmcat moved aside to replace it, and never removed (two runs replacing the same
// entry at once, or a run killed meanwhile): ".sha256-…-PLATFORM.tmp-N.old". Entries are
// content-addressed and never swapped now, so no run is using one.
func isSwapLeftover(name string) bool {
	entry, _, ok := strings.Cut(strings.TrimPrefix(name, "."), ".tmp-")
	return strings.HasPrefix(name, ".") && ok && isEntryName(entry) && strings.HasSuffix(name, ".old")
}

// prune removes the entries not used since before now-maxAge (none when maxAge is 0), the
// entries of the earlier format, and what killed or racing runs left (temporary directories no
// process holds, swap leftovers), and says how many entries it removed. Nothing is removed through
// a link. Entries that cannot be removed are left; a cache that does not exist yet has nothing to
// prune.
func (c *cache) prune(maxAge time.Duration, now time.Time) (unused, old int, err error) {
	root, err := c.bundles(false)
	if root == nil || err != nil {
		return 0, 0, err
	}
	d, err := root.Open(".")
	if err != nil {
		return 0, 0, err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.Type().IsRegular() && isOldEntryName(name):
			if root.Remove(name) == nil {
				old++
			}
		case e.IsDir() && isSwapLeftover(name):
			root.RemoveAll(name)
		case e.IsDir() && isEntryName(name) && maxAge > 0:
			info, err := e.Info()
			if err == nil && now.Sub(info.ModTime()) > maxAge && root.RemoveAll(name) == nil {
				unused++
			}
		}
	}
	if c.samePath(root) == nil {
		scratch.RemoveStale(c.dir, ".sha256-") // temporary entries of runs that were killed
	}
	return unused, old, nil
}

func (c *cache) entryName(digest v1.Hash) string {
	plat := strings.NewReplacer("/", "_", ":", "_").Replace(c.platform)
	return digest.Algorithm + "-" + digest.Hex + "-" + plat
}

func (c *cache) entry(digest v1.Hash) string { return filepath.Join(c.dir, c.entryName(digest)) }

// errCorrupt marks an entry that exists but does not verify.
var errCorrupt = errors.New("corrupt cache entry")

// found notes that the entry name, as fi shows it, does not verify: commit replaces it.
func (c *cache) found(name string, fi fs.FileInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corrupt == nil {
		c.corrupt = map[string]fs.FileInfo{}
	}
	c.corrupt[name] = fi
}

// load renders the bundle of the entry of digest (ref is how messages name it), unless it has no entry (ok false). An error
// wraps errCorrupt when the entry is there but does not verify, or does not hold a bundle.
func (c *cache) load(ctx context.Context, ref string, digest v1.Hash, opts indeximage.Options) (b fbc.Bundle, ok bool, err error) {
	root, err := c.bundles(false)
	if root == nil || err != nil {
		return fbc.Bundle{}, false, nil // no cache yet, or none to read: pulled, and said when written
	}
	name, dir := c.entryName(digest), c.entry(digest)
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return fbc.Bundle{}, false, nil
	} else if err != nil {
		return fbc.Bundle{}, false, err
	}
	if !fi.IsDir() {
		c.found(name, fi)
		return fbc.Bundle{}, true, fmt.Errorf("%w: %s is not a directory but %s (never followed)", errCorrupt, dir, nofollow.Describe(fi.Mode()))
	}
	entry, err := nofollow.OpenDir(root, name)
	if errors.Is(err, fs.ErrNotExist) {
		return fbc.Bundle{}, false, nil
	} else if err != nil {
		c.found(name, fi)
		return fbc.Bundle{}, true, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	defer entry.Close()
	opts.Platform = c.platform
	img, err := indeximage.FetchBundleIn(ctx, entry, dir, digest, opts)
	if err == nil {
		b, err = renderBundle(ref, img)
	}
	if err != nil {
		if ctx.Err() != nil {
			return fbc.Bundle{}, true, ctx.Err()
		}
		c.found(name, fi)
		return fbc.Bundle{}, true, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	now := time.Now()
	_ = root.Chtimes(name, now, now) // used now; a read-only cache is still read
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

// newEntry prepares the entry of digest, written by commit (atomically: a temporary directory
// beside it, renamed into place).
func (c *cache) newEntry(digest v1.Hash) (*atomicout.Target, error) {
	root, err := c.bundles(true)
	if err != nil {
		return nil, err
	}
	if err := c.samePath(root); err != nil {
		return nil, err
	}
	// An entry that is not a directory (a symbolic link put there, a file) is removed first:
	// atomicout would replace what a link points to and keep the link, so the entry would be
	// "repaired" on every run and never replaced, and a link's target is no business of the cache.
	name := c.entryName(digest)
	if fi, err := root.Lstat(name); err == nil && !fi.IsDir() {
		if err := root.Remove(name); err != nil {
			return nil, err
		}
	}
	return atomicout.Dir(filepath.Join(c.dir, name), true)
}

// commit puts the entry of digest in place, unless another run did meanwhile: entries are
// content-addressed, so its entry is as good as this one and is kept (a run reading it is not
// disturbed). An entry this run found damaged (the same one, not one committed since) is replaced.
func (c *cache) commit(t *atomicout.Target, digest v1.Hash) error {
	name := c.entryName(digest)
	c.mu.Lock()
	damaged := c.corrupt[name]
	c.mu.Unlock()
	_, err := t.CommitNew(func(there fs.FileInfo) bool {
		return !there.IsDir() || (damaged != nil && os.SameFile(damaged, there))
	})
	return err
}
