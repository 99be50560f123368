package bundlefetch

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/indeximage"
)

// The cache keeps one file per pulled bundle image under DIR/bundles, named by the image's
// manifest digest and the platform read from it. The file holds the image's labels and its
// bundle (manifests/ and metadata/) as an uncompressed tar, with the tar's digest. Reading an
// entry back goes through the same hardened layer reader as a pulled image, so a cache entry is
// trusted no more than a registry: an entry that does not decode, names another digest or whose
// tar does not hash to its digest is ignored and the image pulled again.

const (
	cacheSubdir    = "bundles"
	entrySchema    = "olmcat.bundle-cache.v1"
	maxEntrySize   = 256 << 20
	bundleManifest = "/manifests"
	bundleMetadata = "/metadata"
)

type cacheEntry struct {
	Schema      string            `json:"schema"`
	Digest      string            `json:"digest"`
	Platform    string            `json:"platform"`
	Labels      map[string]string `json:"labels"`
	LayerDigest string            `json:"layerDigest"`
	Layer       []byte            `json:"layer"`
}

type cache struct {
	dir      string // DIR/bundles
	platform string
}

func (c *cache) path(digest v1.Hash) string {
	plat := strings.NewReplacer("/", "_", ":", "_").Replace(c.platform)
	return filepath.Join(c.dir, digest.Algorithm+"-"+digest.Hex+"-"+plat+".json")
}

// errCorrupt marks an entry that exists but cannot be trusted.
var errCorrupt = errors.New("corrupt cache entry")

// load reads the entry of digest and extracts its bundle. ok is false when there is no entry;
// an error wraps errCorrupt when the entry is there but unusable.
func (c *cache) load(ctx context.Context, digest v1.Hash, opts indeximage.Options) (*indeximage.Bundle, bool, error) {
	p := c.path(digest)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEntrySize+1))
	if err != nil {
		return nil, true, fmt.Errorf("%w %s: %v", errCorrupt, p, err)
	}
	var e cacheEntry
	if len(data) > maxEntrySize || json.Unmarshal(data, &e) != nil {
		return nil, true, fmt.Errorf("%w %s: it does not decode", errCorrupt, p)
	}
	sum := sha256.Sum256(e.Layer)
	switch {
	case e.Schema != entrySchema || e.Digest != digest.String() || e.Platform != c.platform:
		return nil, true, fmt.Errorf("%w %s: it is not the entry of %s", errCorrupt, p, digest)
	case e.LayerDigest != "sha256:"+hex.EncodeToString(sum[:]):
		return nil, true, fmt.Errorf("%w %s: its content does not hash to its digest", errCorrupt, p)
	}
	img, err := imageOf(e)
	if err != nil {
		return nil, true, fmt.Errorf("%w %s: %v", errCorrupt, p, err)
	}
	b, err := indeximage.ExtractBundle(ctx, img, opts)
	if err != nil {
		return nil, true, fmt.Errorf("%w %s: %v", errCorrupt, p, err)
	}
	b.Labels, b.Digest = e.Labels, digest
	return b, true, nil
}

// imageOf rebuilds an image of the entry's bundle: one layer, the labels with the bundle's
// directories where the layer has them.
func imageOf(e cacheEntry) (v1.Image, error) {
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(e.Layer)), nil })
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Config.Labels = map[string]string{}
	for k, v := range e.Labels {
		cf.Config.Labels[k] = v
	}
	cf.Config.Labels[indeximage.BundleManifestsLabel] = bundleManifest
	cf.Config.Labels[indeximage.BundleMetadataLabel] = bundleMetadata
	return mutate.ConfigFile(img, cf)
}

// store writes the entry of a pulled bundle atomically (temporary file, then rename).
func (c *cache) store(digest v1.Hash, b *indeximage.Bundle) error {
	layer, err := tarDir(b.Dir)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(layer)
	data, err := json.Marshal(cacheEntry{Schema: entrySchema, Digest: digest.String(), Platform: c.platform,
		Labels: b.Labels, LayerDigest: "sha256:" + hex.EncodeToString(sum[:]), Layer: layer})
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

// tarDir is the tar of a bundle directory's manifests/ and metadata/, in sorted order.
func tarDir(dir string) ([]byte, error) {
	var paths []string
	for _, sub := range []string{"manifests", "metadata"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil, err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Format: tar.FormatPAX}
		switch {
		case fi.IsDir():
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, hdr.Name+"/", 0o755
		case fi.Mode()&fs.ModeSymlink != 0:
			if hdr.Linkname, err = os.Readlink(p); err != nil {
				return nil, err
			}
			hdr.Typeflag = tar.TypeSymlink
		case fi.Mode().IsRegular():
			hdr.Typeflag, hdr.Size = tar.TypeReg, fi.Size()
		default:
			continue
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			if _, err := tw.Write(data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
