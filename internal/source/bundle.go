package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/internal/indeximage"
)

// A bundle reference is a bundle directory (manifests/ and metadata/) or a bundle image. Bundle
// images are read like index images (registry, oci-layout:, docker-archive:, daemonless, hostile
// layers refused) but are not catalogs: they are extracted to a scratch directory, parsed as a
// bundle directory and removed; messages name the reference instead of the scratch directory.

const bundleRefHint = "give a bundle directory (manifests/ and metadata/) or a bundle image: REGISTRY/REPO:TAG, oci-layout:DIR[:TAG], docker-archive:FILE"

// IsBundleDir reports whether p is a bundle directory: it holds manifests/ and metadata/.
func IsBundleDir(p string) bool {
	for _, sub := range []string{"manifests", "metadata"} {
		if fi, err := os.Stat(filepath.Join(p, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// IsBundleImage reports whether a bundle reference names an image rather than a local path.
func IsBundleImage(ref string) bool { return !IsBundleDir(ref) && indeximage.IsImageRef(ref) }

// OpenBundle reads a bundle directory or a bundle image. An image's labels are compared with its
// annotations.yaml as 'bundle validate' compares them; opm reads only annotations.yaml, so a
// disagreement is one of the bundle's warnings.
func OpenBundle(ctx context.Context, ref string, opts indeximage.Options) (*bundledir.Bundle, error) {
	if !IsBundleImage(ref) {
		if _, err := os.Stat(ref); errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Ref: ref, Problem: NotFound, Detail: "no such file or directory", Hint: bundleRefHint, Err: err}
		} else if err != nil {
			return nil, classify(ref, err)
		}
		b, err := bundledir.Parse(ref)
		if err != nil {
			return nil, badBundle(ref, err.Error())
		}
		return b, nil
	}
	img, err := pullBundle(ctx, ref, opts)
	if err != nil {
		return nil, err
	}
	return ParseImageBundle(ref, img)
}

// AsBundleImage reads ref as a bundle image when err, met opening ref as a catalog, says that ref
// is a bundle image (ok). Any other err, an image that is neither a catalog nor a bundle among
// them, is returned as it is, so that every command words it alike.
func AsBundleImage(ctx context.Context, ref string, err error, opts indeximage.Options) (b *bundledir.Bundle, ok bool, _ error) {
	var notIndex *indeximage.NotIndexError
	if !errors.As(err, &notIndex) || !notIndex.IsBundle() {
		return nil, false, err
	}
	img, err := notIndex.Bundle(ctx, opts)
	if err != nil {
		return nil, true, bundleImageError(ref, err)
	}
	b, err = ParseImageBundle(ref, img)
	return b, true, err
}

// ValidateBundleImage validates the bundle of an image against the image's own labels.
func ValidateBundleImage(ctx context.Context, ref string, opts indeximage.Options, strict bool) (bundledir.Report, error) {
	img, err := pullBundle(ctx, ref, opts)
	if err != nil {
		return bundledir.Report{}, err
	}
	defer img.Cleanup()
	if err := img.WriteDir(); err != nil {
		return bundledir.Report{}, fmt.Errorf("write out the bundle of %s: %w", ref, err)
	}
	r := bundledir.Validate(img.Dir, bundledir.ValidateOptions{Labels: img.Labels, LabelsFrom: "image " + ref, Strict: strict})
	r.Dir = ref
	for i, f := range r.Findings {
		r.Findings[i].Message = strings.ReplaceAll(f.Message, img.Dir, ref)
	}
	return r, nil
}

// BundleImageLabels reads the labels of a bundle image.
func BundleImageLabels(ctx context.Context, ref string, opts indeximage.Options) (map[string]string, error) {
	labels, err := indeximage.Labels(ctx, ref, opts)
	if err != nil {
		return nil, bundleImageError(ref, err)
	}
	return labels, nil
}

// pullBundle extracts a bundle image; call Cleanup on the result.
func pullBundle(ctx context.Context, ref string, opts indeximage.Options) (*indeximage.Bundle, error) {
	if p, ok := indeximage.LocalImagePath(ref); ok {
		if _, err := os.Stat(p); err != nil {
			return nil, &Error{Ref: ref, Problem: NotFound, Detail: p + ": no such file or directory", Hint: bundleRefHint, Err: err}
		}
	}
	b, err := indeximage.FetchBundle(ctx, ref, opts)
	if err != nil {
		return nil, bundleImageError(ref, err)
	}
	return b, nil
}

// bundleImageError words an image that cannot be read as every command words a bad image.
func bundleImageError(ref string, err error) error {
	if IsInputError(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &Error{Ref: ref, Problem: BadImage, Detail: strings.TrimPrefix(err.Error(), ref+": "), Err: err}
}

// ParseImageBundle parses a bundle extracted from the image ref (indeximage.FetchBundle) as a
// bundle directory, then removes the extracted copy: the parsed bundle holds all it needs.
func ParseImageBundle(ref string, img *indeximage.Bundle) (*bundledir.Bundle, error) {
	defer img.Cleanup()
	display := func(s string) string { return strings.ReplaceAll(s, img.Dir, ref) }
	b, err := bundledir.ParseFS(img.Dir, img.Manifests, img.Metadata)
	if err != nil {
		return nil, badBundle(ref, display(err.Error()))
	}
	b.Dir = ref
	for i, w := range b.Warnings {
		b.Warnings[i].File, b.Warnings[i].Message = display(w.File), display(w.Message)
	}
	for _, f := range b.LabelFindings(img.Labels, "image "+ref) {
		b.Warnings = append(b.Warnings, bundledir.Warning{File: ref + "/" + f.File, Message: f.Message})
	}
	return b, nil
}

// badBundle is a bundle whose content cannot be read as a bundle.
func badBundle(ref, msg string) *Error {
	return &Error{Ref: ref, Problem: BadBundle, Detail: strings.TrimPrefix(msg, "bundle "+ref+": ")}
}
