// Package indeximage reads OLM index images without a container daemon: it resolves registry
// references, OCI layouts and docker-save archives, streams only the layers that hold the catalog
// (the legacy /database/index.db or an FBC /configs directory) through a hardened extractor, and
// builds reproducible FBC index images from a base image and a configs directory.
package indeximage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/internal/filetree"
	"github.com/olmcat/olmcat/internal/scratch"
)

// Labels that locate the catalog inside an index image.
const (
	DatabaseLabel      = "operators.operatorframework.io.index.database.v1"
	ConfigsLabel       = "operators.operatorframework.io.index.configs.v1"
	bundlePackageLabel = "operators.operatorframework.io.bundle.package.v1"
)

// Kind says which catalog format an index image holds.
type Kind int

const (
	SQLite Kind = iota + 1 // legacy index.db (DatabaseLabel)
	FBC                    // File-Based Catalog directory (ConfigsLabel)
)

func (k Kind) String() string {
	switch k {
	case SQLite:
		return "sqlite"
	case FBC:
		return "fbc"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Catalog is a catalog extracted from an index image: an index.db into a private temporary
// directory, an FBC directory into a file tree (one temporary file, however many files the catalog
// has). Call Cleanup when done with it.
type Catalog struct {
	Kind Kind
	// Path is the extracted index.db file (SQLite).
	Path string
	// Files is the extracted configs directory (FBC), its root the catalog directory.
	Files *filetree.Tree
	// ImagePath is where the catalog lives inside the image, as its label says.
	ImagePath string
	// Ref is the reference as given; Digest the manifest digest of the image read (zero for
	// docker archives, whose digest would cost a recompression of every layer).
	Ref    string
	Digest v1.Hash
	// Image is the image read (the platform's image of a multi-arch index), e.g. the base for
	// BuildFBCImage; Index is the multi-arch index it was picked from (nil for a single image),
	// the base for BuildFBCIndex.
	Image  v1.Image
	Index  v1.ImageIndex
	Labels map[string]string
	// LayersRead of LayersTotal were streamed; the rest could not change the catalog.
	LayersRead, LayersTotal int
	// DatabaseLayers are the diff IDs of layers read that hold nothing but the database
	// directory: pass them to BuildOptions.DatabaseLayers.
	DatabaseLayers []v1.Hash
	Cleanup        func()
}

// Fetch resolves ref (see IsImageRef for the accepted forms), picks the platform's image, and
// extracts its catalog. Only layers from the top down to the one completing the catalog are
// read, streamed, and verified against the config's diff IDs.
func Fetch(ctx context.Context, ref string, opts Options) (*Catalog, error) {
	res, err := resolveRef(ctx, ref, opts)
	if err != nil {
		return nil, err
	}
	cat, err := extract(ctx, res.img, res.where, opts, res.blobsVerified)
	if e, ok := err.(*NotIndexError); ok {
		e.ref, e.digest = ref, res.digest
	}
	if err != nil {
		return nil, err
	}
	cat.Ref, cat.Digest, cat.Index = ref, res.digest, res.index
	return cat, nil
}

// Extract is Fetch for an image already at hand (built in memory, or resolved by the caller).
func Extract(ctx context.Context, img v1.Image, opts Options) (*Catalog, error) {
	return extract(ctx, img, "image", opts, false)
}

// extract reads the catalog of img. blobsVerified says the source already checks every layer
// blob against its digest (a registry), so that hashing the uncompressed content again against
// the diff ID would only cost time.
func extract(ctx context.Context, img v1.Image, where string, opts Options, blobsVerified bool) (*Catalog, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: read image config: %w", where, err)
	}
	if cf == nil {
		return nil, fmt.Errorf("%s has no image config: it is not a container image; give the reference of an index image", where)
	}
	kind, imgPath, err := catalogLocation(cf.Config.Labels, where)
	if err != nil {
		if e, ok := err.(*NotIndexError); ok {
			e.img, e.blobsVerified = img, blobsVerified
		}
		return nil, err
	}
	cat := &Catalog{Kind: kind, ImagePath: imgPath, Image: img, Labels: cf.Config.Labels}
	var w *overlayWalker
	var tree *filetree.Builder
	if kind == SQLite {
		// Locked while in use, so that the next run removes it if this one is killed.
		tmp, unlock, err := scratch.MkdirTempLocked(opts.TempDir, "olmcat-image-")
		if err != nil {
			return nil, fmt.Errorf("create a temporary directory for the catalog of %s: %w", where, err)
		}
		cat.Cleanup = func() {
			os.RemoveAll(tmp)
			unlock()
		}
		cat.Path = filepath.Join(tmp, "index.db")
		w = newFileWalker(strings.TrimPrefix(imgPath, "/"), cat.Path, opts.Limits)
		w.dbDir = databaseDir(imgPath)
	} else {
		tree, err = filetree.NewBuilder(opts.TempDir)
		if err != nil {
			return nil, fmt.Errorf("create a temporary file for the catalog of %s: %w", where, err)
		}
		cat.Cleanup = tree.Discard
		w = newTreeWalker(strings.TrimPrefix(imgPath, "/"), tree, opts.Limits)
	}
	if err := cat.fill(ctx, img, cf, w, where, blobsVerified); err != nil {
		cat.Cleanup()
		return nil, err
	}
	if tree != nil {
		if cat.Files, err = tree.Tree(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		cat.Cleanup = func() { cat.Files.Close() }
	}
	return cat, nil
}

func (cat *Catalog) fill(ctx context.Context, img v1.Image, cf *v1.ConfigFile, w *overlayWalker, where string, blobsVerified bool) error {
	var err error
	cat.LayersRead, cat.LayersTotal, err = readTopDown(ctx, img, cf, where, w, blobsVerified, func(diffID v1.Hash) {
		if w.lastLayerOnlyDB {
			cat.DatabaseLayers = append(cat.DatabaseLayers, diffID)
		}
	})
	if err != nil {
		return err
	}
	if !w.found {
		return fmt.Errorf("%s: its label says the catalog is at %s, but no layer holds it (%d of %d layers read): the image is broken; rebuild it", where, cat.ImagePath, cat.LayersRead, cat.LayersTotal)
	}
	if cat.Kind == FBC && w.tree.Empty() {
		return fmt.Errorf("%s: the catalog directory %s is empty: the image holds no catalog", where, cat.ImagePath)
	}
	return nil
}

// readTopDown streams img's layers from the top down into sink until it is complete, each checked
// against its diff ID unless blobsVerified; after, if set, is called with each layer's diff ID
// once it is read.
func readTopDown(ctx context.Context, img v1.Image, cf *v1.ConfigFile, where string, sink layerSink, blobsVerified bool, after func(diffID v1.Hash)) (read, total int, err error) {
	layers, err := img.Layers()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: list layers: %w", where, err)
	}
	total = len(layers)
	if len(cf.RootFS.DiffIDs) != total {
		return 0, total, fmt.Errorf("%s: the config lists %d diff IDs for %d layers: the image is malformed", where, len(cf.RootFS.DiffIDs), total)
	}
	for i := total - 1; i >= 0 && !sink.complete(); i-- {
		diffID := cf.RootFS.DiffIDs[i]
		want := diffID
		if blobsVerified {
			want = v1.Hash{}
		}
		layerWhere := fmt.Sprintf("%s: layer %d of %d (diff_id %s)", where, i+1, total, diffID)
		if err := readLayer(ctx, layers[i], want, layerWhere, sink); err != nil {
			return read, total, err
		}
		read++
		if after != nil {
			after(diffID)
		}
	}
	return read, total, nil
}

// catalogLocation reads the index labels. Like opm, the database label wins when both are set.
func catalogLocation(labels map[string]string, where string) (Kind, string, error) {
	for _, c := range []struct {
		label string
		kind  Kind
	}{{DatabaseLabel, SQLite}, {ConfigsLabel, FBC}} {
		v, ok := labels[c.label]
		if !ok {
			continue
		}
		p := path.Clean("/" + strings.TrimSpace(v))
		if p == "/" {
			return 0, "", fmt.Errorf("%s: label %s=%q does not name a path inside the image", where, c.label, v)
		}
		return c.kind, p, nil
	}
	return 0, "", &NotIndexError{Where: where, Labels: labels}
}

// readLayer streams one layer through the walker, then reads it to the end so that its content is
// checked: against want, the config's diff ID, unless want is zero (registry blobs, which the
// client checks against their digest at the end of the stream). The diff ID comes from the
// config, never from the layer: OCI-layout layers would compute it from their own content, which
// proves nothing and costs a second read.
func readLayer(ctx context.Context, l v1.Layer, want v1.Hash, where string, w layerSink) error {
	if mt, err := l.MediaType(); err == nil && !tarLayerMediaType(mt) {
		return fmt.Errorf("%s: media type %q is not a tar layer olmcat can read", where, mt)
	}
	rc, err := l.Uncompressed()
	if err != nil {
		return fmt.Errorf("%s: open: %w", where, err)
	}
	defer rc.Close()
	h := sha256.New()
	var content io.Reader = rc
	if size, err := l.Size(); err == nil {
		content = &expansionReader{r: rc, compressed: size, maxRatio: w.maxExpansion()}
	}
	if want.Hex != "" {
		content = io.TeeReader(content, h)
	}
	if err := w.walkLayer(ctx, content, where); err != nil {
		return err
	}
	read, limit := w.budget()
	if _, err := io.Copy(io.Discard, &budgetReader{ctx: ctx, r: content, read: read, limit: limit}); err != nil {
		return fmt.Errorf("%s: read to the end: %w (the layer is truncated or corrupt: pull or rebuild the image)", where, err)
	}
	if err := rc.Close(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); want.Algorithm == "sha256" && want.Hex != "" && got != want.Hex {
		return fmt.Errorf("%s: content digest mismatch: the layer's content hashes to sha256:%s but the image config records %s; the blob is corrupt or was tampered with: pull again or rebuild the image", where, got, want)
	}
	return nil
}
