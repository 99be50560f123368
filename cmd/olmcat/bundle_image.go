package main

import (
	"fmt"
	"slices"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
	"github.com/spf13/cobra"
)

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
		if isBundleDir(ref) {
			blob, err := renderBundleDirRef(cmd, ref, in)
			if err != nil {
				closeAll()
				return nil, nil, func() {}, err
			}
			bundles.Bundles = append(bundles.Bundles, blob)
			continue
		}
		s, err := in.open(cmd, ref)
		b, isBundle, err := source.AsBundleImage(cmd.Context(), ref, err, in.images)
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
