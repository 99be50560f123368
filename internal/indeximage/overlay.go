package indeximage

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/olmcat/olmcat/internal/filetree"
)

// overlayWalker extracts one path of an image's merged filesystem (a directory tree, into a
// filetree, or a single file, to dest), reading the layers from the top down and applying
// whiteouts as overlayfs does: an upper layer's entry wins, ".wh.NAME" hides NAME below,
// ".wh..wh..opq" hides a directory's lower content, and a non-directory hides everything below its
// path. Reading top-down lets the walk stop as soon as no lower layer can change the result (the
// usual case for index.db, which sits in one of the last layers), so base-image layers are never
// read.
type overlayWalker struct {
	root   string            // image path without the leading slash, e.g. "configs" or "database/index.db"
	single bool              // root must be one regular file
	dest   string            // when single, the host file receiving it
	tree   *filetree.Builder // otherwise, the tree receiving root's content
	limits Limits
	what   string // how errors name root: "catalog path", "bundle path"

	hidden  map[string]bool // paths removed for lower layers by whiteouts or upper non-directories
	opaque  map[string]bool // directories whose lower content is hidden ("" is the filesystem root)
	present map[string]bool // paths under root already written from an upper layer

	layerHidden, layerOpaque, layerPresent map[string]bool
	layerFiles                             map[string]bool // regular files written from the current layer

	// dbDir, when set, is the database directory: layers holding nothing else are reported
	// (lastLayerOnlyDB) so that BuildFBCImage can drop them without reading them again.
	dbDir                           string
	layerDBInside                   int
	layerDBOutside, lastLayerOnlyDB bool

	copyBuf []byte          // see copyBuffer
	dirs    map[string]bool // tree directories prepare has checked or made

	files, scannedLayers int
	bytes, scanned       int64
	found                bool // root, or something beneath it, was written
}

func newOverlayWalker(root string, limits Limits) *overlayWalker {
	return &overlayWalker{
		root: root, limits: limits.WithDefaults(), what: "catalog path",
		hidden: map[string]bool{}, opaque: map[string]bool{}, present: map[string]bool{}, dirs: map[string]bool{},
	}
}

// newTreeWalker extracts the directory root into tree.
func newTreeWalker(root string, tree *filetree.Builder, limits Limits) *overlayWalker {
	w := newOverlayWalker(root, limits)
	w.tree = tree
	return w
}

// newFileWalker extracts the regular file root to dest.
func newFileWalker(root, dest string, limits Limits) *overlayWalker {
	w := newOverlayWalker(root, limits)
	w.single, w.dest = true, dest
	return w
}

// walkLayer applies one layer's uncompressed tar stream. where names the layer in errors.
func (w *overlayWalker) walkLayer(ctx context.Context, r io.Reader, where string) error {
	return walkTar(ctx, r, where, []*overlayWalker{w})
}

func (w *overlayWalker) budget() (read *int64, limit int64) {
	return &w.scanned, w.limits.MaxScannedBytes
}

func (w *overlayWalker) maxExpansion() int64 { return w.limits.MaxExpansion }

// walkTar applies one layer to several walkers, reading it once (a bundle's manifests and
// metadata). Their roots must not overlap: an entry's content can be read only once. The first
// walker counts the bytes read.
func walkTar(ctx context.Context, r io.Reader, where string, ws []*overlayWalker) error {
	for _, w := range ws {
		w.scannedLayers++
		w.layerHidden, w.layerOpaque = map[string]bool{}, map[string]bool{}
		w.layerPresent, w.layerFiles = map[string]bool{}, map[string]bool{}
		w.layerDBInside, w.layerDBOutside = 0, false
	}
	read, limit := ws[0].budget()
	tr := tar.NewReader(&budgetReader{ctx: ctx, r: r, read: read, limit: limit})
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: read tar stream: %w (the layer is truncated or corrupt)", where, err)
		}
		for _, w := range ws {
			if err := w.entry(hdr, tr); err != nil {
				return fmt.Errorf("%s: entry %q: %w", where, hdr.Name, err)
			}
		}
	}
	for _, w := range ws {
		w.lastLayerOnlyDB = w.dbDir != "" && w.layerDBInside > 0 && !w.layerDBOutside
		mergeInto(w.hidden, w.layerHidden)
		mergeInto(w.opaque, w.layerOpaque)
		mergeInto(w.present, w.layerPresent)
	}
	return nil
}

func mergeInto(dst, src map[string]bool) {
	for k := range src {
		dst[k] = true
	}
}

// copyBuffer is the buffer every file of the walk is written through: large, as index.db files
// run to hundreds of megabytes, and made once.
func (w *overlayWalker) copyBuffer() []byte {
	if w.copyBuf == nil {
		w.copyBuf = make([]byte, 1<<20)
	}
	return w.copyBuf
}

// complete reports whether lower layers can no longer change the result.
func (w *overlayWalker) complete() bool {
	if !w.single && w.opaque[w.root] {
		return true
	}
	for p := w.root; ; {
		if w.hidden[p] {
			return true
		}
		parent := parentOf(p)
		if w.opaque[parent] {
			return true
		}
		if parent == "" {
			return false
		}
		p = parent
	}
}

func (w *overlayWalker) entry(hdr *tar.Header, tr io.Reader) error {
	name, err := cleanEntryName(hdr.Name)
	if err != nil || name == "" {
		return err
	}
	if w.dbDir != "" {
		switch databaseEntry(name, w.dbDir) {
		case entryInside:
			w.layerDBInside++
		case entryOutside:
			w.layerDBOutside = true
		}
	}
	base, dir := path.Base(name), parentOf(name)
	if base == ".wh..wh..opq" {
		if w.relevant(dir) {
			w.layerOpaque[dir] = true
		}
		return nil
	}
	if strings.HasPrefix(base, ".wh.") {
		// ".wh..wh.*" other than the opaque marker are aufs bookkeeping, not whiteouts.
		if target := strings.TrimPrefix(base, ".wh."); target != "" && !strings.HasPrefix(target, ".wh.") {
			if hiddenPath := path.Join(dir, target); w.relevant(hiddenPath) {
				w.layerHidden[hiddenPath] = true
			}
		}
		return nil
	}
	switch {
	case w.under(name):
		if !w.visible(name) {
			return nil
		}
		return w.write(hdr, name, tr)
	case w.ancestor(name):
		if hdr.Typeflag == tar.TypeDir || !w.visible(name) {
			return nil
		}
		if hdr.Typeflag == tar.TypeSymlink {
			return fmt.Errorf("/%s is a symlink to %q and the %s /%s lies beneath it; olmcat does not follow symlinks in image paths: point the image label at the real location", name, hdr.Linkname, w.what, w.root)
		}
		w.layerHidden[name] = true // a file replaces the parent directory: nothing of root below
	}
	return nil
}

// under reports whether p is the root or beneath it; ancestor whether p is a strict parent of it.
func (w *overlayWalker) under(p string) bool {
	return p == w.root || strings.HasPrefix(p, w.root+"/")
}

func (w *overlayWalker) ancestor(p string) bool {
	return p == "" || strings.HasPrefix(w.root, p+"/")
}

func (w *overlayWalker) relevant(p string) bool { return w.under(p) || w.ancestor(p) }

func (w *overlayWalker) visible(name string) bool {
	if w.present[name] {
		return false
	}
	for p := name; ; {
		if w.hidden[p] {
			return false
		}
		parent := parentOf(p)
		if w.opaque[parent] {
			return false
		}
		if parent == "" {
			return true
		}
		p = parent
	}
}

// parentOf is path.Dir with "" (not ".") for top-level names.
func parentOf(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// cleanEntryName validates a tar entry name and returns it cleaned, relative, without "./";
// "" stands for the filesystem root. Absolute names and ".." components are refused wherever
// they appear: no image built by a real tool contains them.
func cleanEntryName(raw string) (string, error) {
	if strings.HasPrefix(raw, "/") {
		return "", fmt.Errorf("%w: absolute path (layer entries must be relative)", ErrUnsafeEntry)
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: path contains \"..\"", ErrUnsafeEntry)
		}
	}
	if strings.ContainsRune(raw, 0) {
		return "", fmt.Errorf("%w: path contains a NUL byte", ErrUnsafeEntry)
	}
	clean := path.Clean(raw)
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

// treeName maps an image path under root to its name in the tree ("." for root itself).
func (w *overlayWalker) treeName(name string) string {
	if rel := strings.TrimPrefix(strings.TrimPrefix(name, w.root), "/"); rel != "" {
		return rel
	}
	return "."
}

func (w *overlayWalker) markPresent(name string) {
	for p := name; w.under(p); p = parentOf(p) {
		w.layerPresent[p] = true
		if p == w.root {
			break
		}
	}
	w.found = true
}
