// Package template reads OLM catalog templates (olm.template.basic, olm.semver,
// olm.template.substitutes), renders them into catalogs as `opm alpha render-template` does, and
// turns catalogs back into templates as `opm alpha convert-template` does.
package template

import (
	"context"
	"errors"
	"fmt"

	"github.com/olmcat/olmcat/fbc"
)

// A BundleRenderer turns the bundle image references a template names into olm.bundle blobs, each
// as `opm render IMAGE` renders it: Image is the reference exactly as written in the template, the
// properties are those opm's registry library produces followed by one olm.bundle.object per
// manifest, and RelatedImages are opm's. The result has one bundle per ref, in the order of refs.
// Implementations may pull in parallel, cache by digest or take bundles from a published catalog;
// the template code neither knows nor cares.
type BundleRenderer interface {
	RenderBundles(ctx context.Context, refs []string) ([]fbc.Bundle, error)
}

// ImageError is what a BundleRenderer returns when a bundle image could not be pulled or read.
type ImageError struct {
	Ref      string // the reference as written in the template
	Registry string // the registry host the reference names
	Err      error  // why: the registry's answer, a transport error, not a bundle image, ...
	// HeldBy is a catalog that holds the bundle in another form than the one rendered (HeldAs,
	// e.g. olm.csv.metadata where opm would print olm.bundle.object manifests), which is why the
	// image was pulled instead of taken from it; "" when none does.
	HeldBy, HeldAs string
}

func (e *ImageError) Error() string { return fmt.Sprintf("failed to pull image %q: %v", e.Ref, e.Err) }

func (e *ImageError) Unwrap() error { return e.Err }

// ImageErrors are all the bundle images of one RenderBundles call that could not be read, in the
// order of its refs (at least one). Its text is the first one's, as opm stops at the first image it
// cannot pull; errors.As finds the first *ImageError.
type ImageErrors []*ImageError

func (e ImageErrors) Error() string { return e[0].Error() }

func (e ImageErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}

// AllImageErrors are the bundle images err says could not be read: every one of an ImageErrors,
// or the one *ImageError; nil when err names none.
func AllImageErrors(err error) []*ImageError {
	var all ImageErrors
	if errors.As(err, &all) && len(all) > 0 {
		return all
	}
	var one *ImageError
	if errors.As(err, &one) {
		return []*ImageError{one}
	}
	return nil
}

// PackageIconer is implemented by a BundleRenderer that takes bundles from catalogs: a bundle in
// olm.csv.metadata form keeps its CSV's description but not its icon, which opm's semver template
// puts into the olm.package blob; the catalog's own olm.package blob has it. known is false when
// the renderer cannot tell (no catalog has the package's olm.package blob); it then says so
// itself, once per package.
type PackageIconer interface {
	PackageIcon(pkg string) (icon *fbc.Icon, known bool)
}

// A BundleStreamer is a BundleRenderer that can also give the bundles one after another, in the
// order of refs, each as soon as it is rendered, without keeping them: RenderStreamed renders a
// long basic template through it in memory that depends on how many images it renders at once,
// not on how many the template names. Errors are those of RenderBundles; an error of fn stops it.
type BundleStreamer interface {
	BundleRenderer
	RenderEach(ctx context.Context, refs []string, fn func(i int, b fbc.Bundle) error) error
}
