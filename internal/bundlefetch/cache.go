package bundlefetch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
)

// The cache keeps one file per pulled bundle image under DIR/bundles, named by the image's
// manifest digest and the platform read from it. The file holds the bundle as `opm render` renders
// it for a bare directory (no image: bundledir.WithImage adds the reference it is pulled by), with
// the digest of that JSON. An entry that does not decode, names another image or does not hash to
// its digest is ignored and the image pulled again; an entry is never trusted more than that.
//
// The cache is bounded by use: an entry's modification time is the last time a run used it
// (written, or read: touched on every hit), and a run that uses the cache first removes the
// entries no run has used for Options.MaxAge. A CI cache that is saved after every job thus holds
// the bundles of the templates it still renders, not of every bundle it ever pulled.

const (
	cacheSubdir  = "bundles"
	entrySchema  = "olmcat.bundle-cache.v1"
	maxEntrySize = fbc.DefaultMaxBlobSize + 1<<20
)

type cacheEntry struct {
	Schema       string          `json:"schema"`
	Digest       string          `json:"digest"`
	Platform     string          `json:"platform"`
	BundleDigest string          `json:"bundleDigest"`
	Bundle       json.RawMessage `json:"bundle"`
}

type cache struct {
	dir      string // DIR/bundles
	platform string
}

// isEntryName reports whether a file of the cache directory is an entry (not a temporary file of
// a write in progress, nor anything else).
func isEntryName(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") && strings.Count(name, "-") >= 2
}

// prune removes the entries not used since before now-maxAge and says how many it removed.
// Entries that cannot be removed are left; a cache that does not exist yet has nothing to prune.
func (c *cache) prune(maxAge time.Duration, now time.Time) (int, error) {
	entries, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !isEntryName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) <= maxAge {
			continue
		}
		if os.Remove(filepath.Join(c.dir, e.Name())) == nil {
			removed++
		}
	}
	return removed, nil
}

func (c *cache) path(digest v1.Hash) string {
	plat := strings.NewReplacer("/", "_", ":", "_").Replace(c.platform)
	return filepath.Join(c.dir, digest.Algorithm+"-"+digest.Hex+"-"+plat+".json")
}

// errCorrupt marks an entry that exists but cannot be trusted.
var errCorrupt = errors.New("corrupt cache entry")

func sha256Of(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// load reads the bundle of digest. ok is false when there is no entry; an error wraps errCorrupt
// when the entry is there but unusable.
func (c *cache) load(digest v1.Hash) (fbc.Bundle, bool, error) {
	p := c.path(digest)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fbc.Bundle{}, false, nil
	} else if err != nil {
		return fbc.Bundle{}, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEntrySize+1))
	if err != nil {
		return fbc.Bundle{}, true, fmt.Errorf("%w %s: %v", errCorrupt, p, err)
	}
	var e cacheEntry
	if len(data) > maxEntrySize || json.Unmarshal(data, &e) != nil {
		return fbc.Bundle{}, true, fmt.Errorf("%w %s: it does not decode", errCorrupt, p)
	}
	switch {
	case e.Schema != entrySchema || e.Digest != digest.String() || e.Platform != c.platform:
		return fbc.Bundle{}, true, fmt.Errorf("%w %s: it is not the entry of %s", errCorrupt, p, digest)
	case e.BundleDigest != sha256Of(e.Bundle):
		return fbc.Bundle{}, true, fmt.Errorf("%w %s: its content does not hash to its digest", errCorrupt, p)
	}
	var b fbc.Bundle
	if err := json.Unmarshal(e.Bundle, &b); err != nil || b.Schema != fbc.SchemaBundle || b.Name == "" || b.Image != "" {
		return fbc.Bundle{}, true, fmt.Errorf("%w %s: it does not hold a rendered bundle", errCorrupt, p)
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // used now; a read-only cache is still read
	return b, true, nil
}

// store writes the entry of a rendered bundle atomically (temporary file, then rename).
func (c *cache) store(digest v1.Hash, b fbc.Bundle) error {
	raw, err := json.Marshal(b) // compact and escaped: embedded as it is, so its digest holds
	if err != nil {
		return err
	}
	data, err := json.Marshal(cacheEntry{Schema: entrySchema, Digest: digest.String(), Platform: c.platform,
		BundleDigest: sha256Of(raw), Bundle: raw})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	t, err := atomicout.File(c.path(digest), true)
	if err != nil {
		return err
	}
	defer t.Abort()
	if err := os.WriteFile(t.Path(), data, 0o644); err != nil {
		return err
	}
	return t.Commit()
}
