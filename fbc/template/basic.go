package template

import (
	"context"
	"errors"

	"github.com/olmcat/olmcat/fbc"
)

// renderBasic loads the entries as FBC and replaces every olm.bundle entry, which names only an
// image, by the bundle rendered from it, in entry order. Nothing else is touched nor validated.
func renderBasic(ctx context.Context, t *Basic, src *bundleSource, loc locator) (*fbc.Catalog, error) {
	cat, err := loadEntries(t.Entries, loc)
	if err != nil {
		return nil, err
	}
	// opm renders entry after entry and stops at the first bundle entry that is more than an
	// image: the images before it are rendered (and may fail) first.
	valid := len(cat.Bundles)
	for i, b := range cat.Bundles {
		if !isBundleTemplate(b) {
			valid = i
			break
		}
	}
	refs := make([]string, 0, valid)
	for _, b := range cat.Bundles[:valid] {
		refs = append(refs, b.Image)
	}
	if err := src.render(ctx, refs); err != nil {
		return nil, err
	}
	if valid < len(cat.Bundles) {
		return nil, errors.New("unexpected fields present in basic template bundle")
	}
	for i, ref := range refs {
		b := src.get(ref).bundle
		b.Loc = cat.Bundles[i].Loc
		cat.Bundles[i] = b
	}
	dropUnknownFields(cat)
	return cat, nil
}

// isBundleTemplate is opm's test for a basic template's bundle entry: an image, and no package,
// properties or related images.
func isBundleTemplate(b fbc.Bundle) bool {
	return b.Schema != "" && b.Image != "" && b.Package == "" && len(b.Properties) == 0 && len(b.RelatedImages) == 0
}
