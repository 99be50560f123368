package ops

import (
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// syntheticPackage makes a package with one channel holding a bundle per version (named
// <pkg>.v<version>), chained by replaces in the order given.
func syntheticPackage(pkg, channel string, versions ...string) *fbc.Catalog {
	c := &fbc.Catalog{Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: pkg, DefaultChannel: channel}}}
	ch := fbc.Channel{Schema: fbc.SchemaChannel, Name: channel, Package: pkg}
	prev := ""
	for _, v := range versions {
		name := pkg + ".v" + v
		c.Bundles = append(c.Bundles, fbc.Bundle{
			Schema: fbc.SchemaBundle, Name: name, Package: pkg, Image: "example.com/" + pkg + ":v" + v,
			Properties: []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: pkg, Version: v})},
		})
		ch.Entries = append(ch.Entries, fbc.ChannelEntry{Name: name, Replaces: prev})
		prev = name
	}
	c.Channels = append(c.Channels, ch)
	return c
}
