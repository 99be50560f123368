package indeximage

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/internal/filetree"
	"github.com/olmcat/olmcat/internal/scratch"
)

// Labels of an operator bundle image: the package names the bundle (opm tells a bundle image by
// it), the other two say where its manifests and metadata directories are.
const (
	BundlePackageLabel   = bundlePackageLabel
	BundleManifestsLabel = "operators.operatorframework.io.bundle.manifests.v1"
	BundleMetadataLabel  = "operators.operatorframework.io.bundle.metadata.v1"
)

// Where a bundle keeps its directories when its labels do not say.
const (
	DefaultManifestsPath = "/manifests"
	DefaultMetadataPath  = "/metadata"
)

// Bundle is an operator bundle extracted from a bundle image, held in memory (Manifests and
// Metadata, read with bundledir.ParseFS) until WriteDir writes it out into Dir. Call Cleanup when
// done with it.
type Bundle struct {
	// Manifests and Metadata are the bundle's manifests/ and metadata/ directories; they keep
	// every link inside themselves.
	Manifests, Metadata *filetree.Tree
	// Dir is a private temporary directory; after WriteDir it holds manifests/ and metadata/,
	// laid out as a bundle directory.
	Dir string
	// ManifestsPath and MetadataPath are where the image keeps them, as its labels say.
	ManifestsPath, MetadataPath string
	// Ref is the reference as given; Digest the manifest digest of the image read (zero for
	// docker archives and images given in hand).
	Ref    string
	Digest v1.Hash
	Labels map[string]string
	// LayersRead of LayersTotal were streamed; the rest could not change the bundle.
	LayersRead, LayersTotal int
	Cleanup                 func()
}

// NotIndexError is the error of Fetch and Extract for an image without the index labels. When
// the image is an operator bundle image (IsBundle), Bundle reads it without resolving it again.
type NotIndexError struct {
	Where  string // how the image is named in messages
	Labels map[string]string

	img           v1.Image
	ref           string
	digest        v1.Hash
	blobsVerified bool
}

func (e *NotIndexError) Error() string {
	hint := fmt.Sprintf(", nor the %s label of an operator bundle image.", bundlePackageLabel)
	if pkg, ok := e.Labels[bundlePackageLabel]; ok {
		hint = fmt.Sprintf(". It is an operator bundle image (package %q), not a catalog.", pkg)
	} else if len(e.Labels) > 0 {
		hint += " Its labels: " + strings.Join(sortedLabelNames(e.Labels), ", ") + "."
	}
	return fmt.Sprintf("%s is not an OLM index image: it has neither the %s label (SQLite index) nor the %s label (File-Based Catalog)%s If the catalog is there without its label, rebuild the image with the label set", e.Where, DatabaseLabel, ConfigsLabel, hint)
}

// IsBundle reports whether the image has the bundle package label, as opm tells bundle images.
func (e *NotIndexError) IsBundle() bool {
	_, ok := e.Labels[bundlePackageLabel]
	return ok
}

// Bundle extracts the bundle of the image the error is about.
func (e *NotIndexError) Bundle(ctx context.Context, opts Options) (*Bundle, error) {
	if !e.IsBundle() {
		return nil, notBundleError(e.Where, e.Labels)
	}
	if e.img == nil {
		return nil, fmt.Errorf("%s: the image is not at hand", e.Where)
	}
	b, err := extractBundle(ctx, e.img, e.Labels, e.Where, opts, e.blobsVerified)
	if err != nil {
		return nil, err
	}
	b.Ref, b.Digest = e.ref, e.digest
	return b, nil
}

// FetchBundle resolves ref (see IsImageRef) and extracts its bundle: the directories its labels
// name (DefaultManifestsPath and DefaultMetadataPath when they do not), read from the top layer
// down with the protections of Fetch (no path out of the directory, no link out, Limits, whiteouts
// applied). The Limits apply to each of the two directories.
func FetchBundle(ctx context.Context, ref string, opts Options) (*Bundle, error) {
	res, err := resolveRef(ctx, ref, opts)
	if err != nil {
		return nil, err
	}
	b, err := bundleOf(ctx, res.img, res.where, opts, res.blobsVerified)
	if err != nil {
		return nil, err
	}
	b.Ref, b.Digest = ref, res.digest
	return b, nil
}

// FetchBundleIn is FetchBundle of the image of digest in the OCI image layout dir, a directory
// the caller opened (the bundle cache opens its entries without following a link); name is how
// messages name it. Every file of the layout is read as for an oci-layout: reference: never
// through a link, never blocking, its size bounded before it is read.
func FetchBundleIn(ctx context.Context, dir *os.Root, name string, digest v1.Hash, opts Options) (*Bundle, error) {
	plat, err := opts.platform()
	if err != nil {
		return nil, err
	}
	ref := imageRef{raw: OCILayoutPrefix + name + "@" + digest.String(), kind: sourceOCILayout, path: name, digest: digest.String()}
	res, err := resolveLayoutIn(ref, &layoutDir{root: dir, name: name}, plat)
	if err != nil {
		return nil, err
	}
	b, err := bundleOf(ctx, res.img, res.where, opts, res.blobsVerified)
	if err != nil {
		return nil, err
	}
	b.Ref, b.Digest = ref.raw, res.digest
	return b, nil
}

// ExtractBundle is FetchBundle for an image already at hand.
func ExtractBundle(ctx context.Context, img v1.Image, opts Options) (*Bundle, error) {
	return bundleOf(ctx, img, "image", opts, false)
}

// Labels resolves ref and returns its image's labels, reading no layer.
func Labels(ctx context.Context, ref string, opts Options) (map[string]string, error) {
	res, err := resolveRef(ctx, ref, opts)
	if err != nil {
		return nil, err
	}
	cf, err := res.img.ConfigFile()
	if err != nil || cf == nil {
		return nil, fmt.Errorf("%s: read image config: %v", res.where, err)
	}
	if cf.Config.Labels == nil {
		return map[string]string{}, nil
	}
	return cf.Config.Labels, nil
}

func bundleOf(ctx context.Context, img v1.Image, where string, opts Options, blobsVerified bool) (*Bundle, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: read image config: %w", where, err)
	}
	if cf == nil {
		return nil, fmt.Errorf("%s has no image config: it is not a container image; give the reference of a bundle image", where)
	}
	labels := cf.Config.Labels
	if _, ok := labels[bundlePackageLabel]; !ok {
		return nil, notBundleError(where, labels)
	}
	if _, _, err := catalogLocation(labels, where); err == nil {
		return nil, notBundleError(where, labels) // opm reads an image with index labels as a catalog
	}
	return extractBundle(ctx, img, labels, where, opts, blobsVerified)
}

// notBundleError says what an image is instead of a bundle image.
func notBundleError(where string, labels map[string]string) error {
	for _, l := range []string{DatabaseLabel, ConfigsLabel} {
		if v, ok := labels[l]; ok {
			return fmt.Errorf("%s is an OLM index image (label %s=%s), not an operator bundle image: read it as a catalog (olmcat render), or give the reference of a bundle image", where, l, v)
		}
	}
	hint := " It has no labels."
	if len(labels) > 0 {
		hint = " Its labels: " + strings.Join(sortedLabelNames(labels), ", ") + "."
	}
	return fmt.Errorf("%s is neither an operator bundle image (it has no %s label) nor an OLM index image (no %s or %s label).%s Rebuild a bundle image with its bundle.Dockerfile, which sets the labels of metadata/annotations.yaml", where, bundlePackageLabel, DatabaseLabel, ConfigsLabel, hint)
}

// bundlePaths reads where the bundle keeps its manifests and metadata.
func bundlePaths(labels map[string]string, where string) (manifests, metadata string, err error) {
	get := func(label, def string) (string, error) {
		v := strings.TrimSpace(labels[label])
		if v == "" {
			return def, nil
		}
		p := path.Clean("/" + v)
		if p == "/" {
			return "", fmt.Errorf("%s: label %s=%q does not name a directory inside the image", where, label, labels[label])
		}
		return p, nil
	}
	if manifests, err = get(BundleManifestsLabel, DefaultManifestsPath); err != nil {
		return "", "", err
	}
	if metadata, err = get(BundleMetadataLabel, DefaultMetadataPath); err != nil {
		return "", "", err
	}
	if manifests == metadata || strings.HasPrefix(metadata, manifests+"/") || strings.HasPrefix(manifests, metadata+"/") {
		return "", "", fmt.Errorf("%s: its labels put the manifests (%s) and the metadata (%s) in one directory tree; a bundle keeps them in two separate directories", where, manifests, metadata)
	}
	return manifests, metadata, nil
}

func extractBundle(ctx context.Context, img v1.Image, labels map[string]string, where string, opts Options, blobsVerified bool) (*Bundle, error) {
	manifests, metadata, err := bundlePaths(labels, where)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: read image config: %w", where, err)
	}
	tmp, remove, err := scratch.MkdirTemp(opts.TempDir, "olmcat-bundle-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory for the bundle of %s: %w", where, err)
	}
	b := &Bundle{Dir: tmp, ManifestsPath: manifests, MetadataPath: metadata, Labels: labels}
	b.Cleanup = func() { b.close(); _ = remove() }
	if err := b.fill(ctx, img, cf, where, opts.Limits, blobsVerified); err != nil {
		b.Cleanup()
		return nil, err
	}
	return b, nil
}

// bundleInMemory is how much of a bundle directory's content is held in memory (then it goes to a
// temporary file); bundleCopyBuffer the buffer its files are copied through.
const (
	bundleInMemory   = 8 << 20
	bundleCopyBuffer = 64 << 10
)

func (b *Bundle) fill(ctx context.Context, img v1.Image, cf *v1.ConfigFile, where string, limits Limits, blobsVerified bool) error {
	var ws walkerSet
	defer func() {
		for _, w := range ws {
			w.tree.Discard()
		}
	}()
	// A bundle is read back as soon as it is extracted, and is most often a few hundred kB: its
	// files stay in memory unless it is large, and its two walkers (one file at a time) share a
	// copy buffer of the size of a bundle's file, not of a catalog's database.
	buf := make([]byte, bundleCopyBuffer)
	for _, imagePath := range []string{b.ManifestsPath, b.MetadataPath} {
		tree := filetree.NewBuilderInMemory(b.Dir, bundleInMemory)
		w := newTreeWalker(strings.TrimPrefix(imagePath, "/"), tree, limits)
		w.what = "bundle path"
		w.copyBuf = buf
		ws = append(ws, w)
	}
	var err error
	b.LayersRead, b.LayersTotal, err = readTopDown(ctx, img, cf, where, ws, blobsVerified, nil)
	if err != nil {
		return err
	}
	for i, label := range []string{BundleManifestsLabel, BundleMetadataLabel} {
		if !ws[i].found {
			return fmt.Errorf("%s: no layer holds /%s, where the bundle keeps its %s (label %s; %d of %d layers read): the image is not a complete operator bundle; rebuild it", where, ws[i].root, []string{"manifests", "metadata"}[i], label, b.LayersRead, b.LayersTotal)
		}
	}
	if b.Manifests, err = ws[0].tree.Tree(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if b.Metadata, err = ws[1].tree.Tree(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// WriteDir writes the bundle out into Dir, for readers of a bundle directory on disk.
func (b *Bundle) WriteDir() error {
	for _, sub := range []struct {
		name string
		tree *filetree.Tree
	}{{"manifests", b.Manifests}, {"metadata", b.Metadata}} {
		dest := filepath.Join(b.Dir, sub.name)
		if err := os.Mkdir(dest, 0o755); err != nil {
			return err
		}
		if err := sub.tree.WriteTo(dest); err != nil {
			return err
		}
	}
	return nil
}

// close releases the bundle's trees (Cleanup also removes Dir).
func (b *Bundle) close() {
	for _, t := range []*filetree.Tree{b.Manifests, b.Metadata} {
		if t != nil {
			t.Close()
		}
	}
}

// walkerSet reads each layer once for several paths.
type walkerSet []*overlayWalker

func (ws walkerSet) walkLayer(ctx context.Context, r io.Reader, where string) error {
	return walkTar(ctx, r, where, ws)
}

func (ws walkerSet) budget() (*int64, int64) { return ws[0].budget() }

func (ws walkerSet) maxExpansion() int64 { return ws[0].maxExpansion() }

func (ws walkerSet) complete() bool {
	for _, w := range ws {
		if !w.complete() {
			return false
		}
	}
	return true
}

// layerSink is what readLayer streams a layer into: one walker, or a set.
type layerSink interface {
	walkLayer(ctx context.Context, r io.Reader, where string) error
	budget() (read *int64, limit int64)
	maxExpansion() int64
	complete() bool // lower layers can no longer change the result
}

func sortedLabelNames(labels map[string]string) []string {
	names := make([]string, 0, len(labels))
	for k := range labels {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
