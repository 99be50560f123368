package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

// imageBundleRenderer renders the bundle images of a template one after another, through the
// bundle-image reading every command uses, without a cache. (Stand-in until internal/bundlefetch,
// which pulls in parallel and caches by digest, replaces it.)
type imageBundleRenderer struct{ opts indeximage.Options }

func (r imageBundleRenderer) RenderBundles(ctx context.Context, refs []string) ([]fbc.Bundle, error) {
	out := make([]fbc.Bundle, 0, len(refs))
	for _, ref := range refs {
		imageErr := func(err error) error {
			return &template.ImageError{Ref: ref, Registry: registryOf(ref), Err: err}
		}
		if !source.IsBundleImage(ref) {
			return nil, imageErr(fmt.Errorf("not a bundle image reference: a template's bundles are images (REGISTRY/REPO:TAG or @DIGEST), as in opm"))
		}
		b, err := source.OpenBundle(ctx, ref, r.opts)
		if err != nil {
			var input *source.Error
			if errors.As(err, &input) && input.Ref == ref && input.Detail != "" {
				err = reworded{msg: input.Detail, err: err} // ImageError names ref already
			}
			return nil, imageErr(err)
		}
		rendered, err := b.Render(ref)
		if err != nil {
			return nil, imageErr(err)
		}
		out = append(out, rendered)
	}
	return out, nil
}

// registryOf is the registry host a reference names ("" when it does not parse).
func registryOf(ref string) string {
	r, err := name.ParseReference(ref)
	if err != nil {
		return ""
	}
	return r.Context().RegistryStr()
}

// reworded is an error with a shorter message than its cause.
type reworded struct {
	msg string
	err error
}

func (e reworded) Error() string { return e.msg }
func (e reworded) Unwrap() error { return e.err }
