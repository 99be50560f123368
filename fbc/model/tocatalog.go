package model

import (
	"slices"

	"github.com/olmcat/olmcat/fbc"
)

// ToCatalog turns a model back into serialized blobs the way opm's ConvertFromModel does: one
// olm.package blob per package, its channels with their entries sorted by name, and its bundles
// with their properties and related images exactly as they are in the model. Deprecations become
// one olm.deprecations blob per package (the package entry first, then channels and bundles by
// name). Others are kept as they are. Locations are kept; fields of the original blobs that the
// model does not hold (unknown JSON fields, entry order) are not restored. Blobs come out in name
// order, which is also the order fbc.Write uses.
func ToCatalog(m *Model) *fbc.Catalog {
	c := &fbc.Catalog{Others: slices.Clone(m.Others)}
	for _, p := range m.SortedPackages() {
		c.Packages = append(c.Packages, fbc.Package{
			Schema: fbc.SchemaPackage, Name: p.Name, DefaultChannel: p.DefaultChannel, Icon: p.Icon,
			Description: p.Description, Properties: p.Properties, Loc: p.Loc,
		})
		var deprecations []fbc.DeprecationEntry
		if p.Deprecation != nil {
			deprecations = append(deprecations, fbc.DeprecationEntry{
				Reference: fbc.Reference{Schema: fbc.SchemaPackage}, Message: p.Deprecation.Message})
		}
		for _, ch := range p.SortedChannels() {
			out := fbc.Channel{Schema: fbc.SchemaChannel, Name: ch.Name, Package: p.Name, Properties: ch.Properties,
				Loc: ch.Loc, Entries: make([]fbc.ChannelEntry, 0, len(ch.Entries))}
			for _, e := range ch.SortedEntries() {
				out.Entries = append(out.Entries, fbc.ChannelEntry{Name: e.Name, Replaces: e.Replaces,
					Skips: slices.Clone(e.Skips), SkipRange: e.SkipRange})
			}
			c.Channels = append(c.Channels, out)
			if ch.Deprecation != nil {
				deprecations = append(deprecations, fbc.DeprecationEntry{
					Reference: fbc.Reference{Schema: fbc.SchemaChannel, Name: ch.Name}, Message: ch.Deprecation.Message})
			}
		}
		for _, b := range p.SortedBundles() {
			c.Bundles = append(c.Bundles, fbc.Bundle{
				Schema: fbc.SchemaBundle, Name: b.Name, Package: p.Name, Image: b.Image,
				Properties: b.Properties, RelatedImages: b.RelatedImages, Loc: b.Loc,
			})
			if b.Deprecation != nil {
				deprecations = append(deprecations, fbc.DeprecationEntry{
					Reference: fbc.Reference{Schema: fbc.SchemaBundle, Name: b.Name}, Message: b.Deprecation.Message})
			}
		}
		if len(deprecations) > 0 {
			c.Deprecations = append(c.Deprecations, fbc.Deprecation{Schema: fbc.SchemaDeprecations, Package: p.Name, Entries: deprecations})
		}
	}
	return c
}
