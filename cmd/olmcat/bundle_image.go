package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
	"github.com/spf13/cobra"
)

// Bundle images are read like index images (registry, oci-layout:, docker-archive:, daemonless,
// hostile layers refused) but are not catalogs: they are extracted to a scratch directory, parsed
// as a bundle directory and rendered with the reference as their image, as opm renders them.

const bundleRefHint = "give a bundle directory (manifests/ and metadata/) or a bundle image: REGISTRY/REPO:TAG, oci-layout:DIR[:TAG], docker-archive:FILE"

// isBundleImageArg reports whether a BUNDLE argument names an image rather than a local path.
func isBundleImageArg(a string) bool { return !isBundleDir(a) && indeximage.IsImageRef(a) }

// fetchBundleImage pulls a bundle image and parses its bundle (see parseImageBundle).
func fetchBundleImage(ctx context.Context, ref string, opts indeximage.Options) (*bundledir.Bundle, error) {
	b, err := pullBundle(ctx, ref, opts)
	if err != nil {
		return nil, err
	}
	return parseImageBundle(ref, b)
}

// pullBundle extracts a bundle image; call Cleanup on the result.
func pullBundle(ctx context.Context, ref string, opts indeximage.Options) (*indeximage.Bundle, error) {
	if p, ok := indeximage.LocalImagePath(ref); ok {
		if _, err := os.Stat(p); err != nil {
			return nil, &source.Error{Ref: ref, Problem: source.NotFound, Detail: p + ": no such file or directory", Hint: bundleRefHint, Err: err}
		}
	}
	b, err := indeximage.FetchBundle(ctx, ref, opts)
	if err != nil {
		return nil, bundleImageError(ref, err)
	}
	return b, nil
}

// asBundleImage reads ref as a bundle image when err, met opening ref as a catalog, says that ref
// is a bundle image (ok). Any other err, an image that is neither a catalog nor a bundle among
// them, is returned as it is, so that every command words it alike.
func asBundleImage(ctx context.Context, ref string, err error, opts indeximage.Options) (b *bundledir.Bundle, ok bool, _ error) {
	var notIndex *indeximage.NotIndexError
	if !errors.As(err, &notIndex) || !notIndex.IsBundle() {
		return nil, false, err
	}
	img, err := notIndex.Bundle(ctx, opts)
	if err != nil {
		return nil, true, bundleImageError(ref, err)
	}
	b, err = parseImageBundle(ref, img)
	return b, true, err
}

// bundleImageError words an image that cannot be read as every command words a bad image.
func bundleImageError(ref string, err error) error {
	if source.IsInputError(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &source.Error{Ref: ref, Problem: source.BadImage, Detail: strings.TrimPrefix(err.Error(), ref+": "), Err: err}
}

// parseImageBundle parses an extracted bundle as a bundle directory, then removes it: the parsed
// bundle holds all it needs. Messages name the reference instead of the scratch directory. The
// image's labels are compared with annotations.yaml as 'bundle validate' compares them; opm reads
// only annotations.yaml, so a disagreement is a warning here.
func parseImageBundle(ref string, img *indeximage.Bundle) (*bundledir.Bundle, error) {
	defer img.Cleanup()
	display := func(s string) string { return strings.ReplaceAll(s, img.Dir, ref) }
	b, err := bundledir.Parse(img.Dir)
	if err != nil {
		return nil, usageError{errors.New(display(err.Error()))}
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

// renderImageBundle renders a bundle with its image, migrated to level as opm render migrates
// every bundle that has an image.
func renderImageBundle(b *bundledir.Bundle, image string, level tofbc.MigrateLevel) (fbc.Bundle, error) {
	blob, err := b.Render(image)
	if err != nil || level != tofbc.LevelCSVMetadata || image == "" {
		return blob, err
	}
	if slices.ContainsFunc(blob.Properties, func(p fbc.Property) bool { return p.Type == property.TypeCSVMetadata }) {
		return blob, nil
	}
	for _, o := range b.Objects {
		if o.Kind != "ClusterServiceVersion" {
			continue
		}
		meta, err := csvmeta.FromCSV(o.JSON)
		if err != nil {
			return blob, fmt.Errorf("bundle %s: %s: olm.csv.metadata: %w", b.Dir, o.File, err)
		}
		props := slices.DeleteFunc(blob.Properties, func(p fbc.Property) bool { return p.Type == property.TypeBundleObject })
		blob.Properties = append(props, property.Build(property.TypeCSVMetadata, meta))
		break
	}
	return blob, nil
}

// validateBundleImage validates the bundle of an image against the image's own labels.
func validateBundleImage(ctx context.Context, ref string, opts indeximage.Options, strict bool) (bundledir.Report, error) {
	img, err := pullBundle(ctx, ref, opts)
	if err != nil {
		return bundledir.Report{}, err
	}
	defer img.Cleanup()
	r := bundledir.Validate(img.Dir, bundledir.ValidateOptions{Labels: img.Labels, LabelsFrom: "image " + ref, Strict: strict})
	r.Dir = ref
	for i, f := range r.Findings {
		r.Findings[i].Message = strings.ReplaceAll(f.Message, img.Dir, ref)
	}
	return r, nil
}

// localInputPaths maps references to what they read on disk, for the output guards.
func localInputPaths(refs []string) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		if p, ok := indeximage.LocalImagePath(r); ok {
			r = p
		}
		out = append(out, r)
	}
	return out
}

// openRenderInputs opens render's arguments as openAll does, except that a bundle image is
// rendered into bundles instead: an image is a catalog when it has the index labels, a bundle
// when it has the bundle package label instead (opm's order), and an error otherwise.
func openRenderInputs(cmd *cobra.Command, in inputFlags, refs []string) ([]*source.Source, *fbc.Catalog, func(), error) {
	var srcs []*source.Source
	closeAll := func() {
		for _, s := range srcs {
			s.Close()
		}
	}
	if i := slices.Index(refs, "-"); i >= 0 && slices.Contains(refs[i+1:], "-") {
		return nil, nil, func() {}, usageError{errTwoStdin}
	}
	bundles := &fbc.Catalog{}
	for _, ref := range refs {
		s, err := in.open(cmd, ref)
		b, isBundle, err := asBundleImage(cmd.Context(), ref, err, in.images)
		if err == nil && isBundle {
			_ = reportBundleWarnings(cmd.ErrOrStderr(), b, false)
			var blob fbc.Bundle
			if blob, err = renderImageBundle(b, ref, in.migrateLevel); err == nil {
				bundles.Bundles = append(bundles.Bundles, blob)
				continue
			}
			err = usageError{err}
		}
		if err != nil {
			closeAll()
			return nil, nil, func() {}, err
		}
		srcs = append(srcs, s)
	}
	return srcs, bundles, closeAll, nil
}
