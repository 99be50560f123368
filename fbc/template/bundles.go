// Package template reads OLM catalog templates (olm.template.basic, olm.semver,
// olm.template.substitutes), renders them into catalogs as `opm alpha render-template` does, and
// turns catalogs back into templates as `opm alpha convert-template` does.
package template

import (
	"context"
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
}

func (e *ImageError) Error() string { return fmt.Sprintf("failed to pull image %q: %v", e.Ref, e.Err) }

func (e *ImageError) Unwrap() error { return e.Err }

// A BundleStreamer is a BundleRenderer that can also give the bundles one after another, in the
// order of refs, each as soon as it is rendered, without keeping them: RenderStreamed renders a
// long basic template through it in memory that depends on how many images it renders at once,
// not on how many the template names. Errors are those of RenderBundles; an error of fn stops it.
type BundleStreamer interface {
	BundleRenderer
	RenderEach(ctx context.Context, refs []string, fn func(i int, b fbc.Bundle) error) error
}
