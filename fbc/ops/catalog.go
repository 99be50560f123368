package ops

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// These helpers find blobs in a serialized catalog; they return -1 when there is none.

func findPackage(c *fbc.Catalog, name string) int {
	return slices.IndexFunc(c.Packages, func(p fbc.Package) bool { return p.Name == name })
}

func findChannel(c *fbc.Catalog, pkg, name string) int {
	return slices.IndexFunc(c.Channels, func(ch fbc.Channel) bool { return ch.Package == pkg && ch.Name == name })
}

func findBundle(c *fbc.Catalog, pkg, name string) int {
	return slices.IndexFunc(c.Bundles, func(b fbc.Bundle) bool { return b.Package == pkg && b.Name == name })
}

func findEntry(ch *fbc.Channel, name string) int {
	return slices.IndexFunc(ch.Entries, func(e fbc.ChannelEntry) bool { return e.Name == name })
}

// channelNames returns the names of the package's channels, in catalog order.
func channelNames(c *fbc.Catalog, pkg string) []string {
	var out []string
	for _, ch := range c.Channels {
		if ch.Package == pkg {
			out = append(out, ch.Name)
		}
	}
	return out
}

// clone copies everything an operation may change, so that a failed operation can leave the
// caller's catalog untouched: operations work on a clone and copy it back on success.
func clone(c *fbc.Catalog) *fbc.Catalog {
	out := &fbc.Catalog{
		Packages: slices.Clone(c.Packages),
		Channels: slices.Clone(c.Channels),
		Bundles:  slices.Clone(c.Bundles),
		Others:   slices.Clone(c.Others),
	}
	for i := range out.Channels {
		out.Channels[i].Entries = slices.Clone(out.Channels[i].Entries)
		out.Channels[i].Properties = slices.Clone(out.Channels[i].Properties)
		for j := range out.Channels[i].Entries {
			out.Channels[i].Entries[j].Skips = slices.Clone(out.Channels[i].Entries[j].Skips)
		}
	}
	out.Deprecations = slices.Clone(c.Deprecations)
	for i := range out.Deprecations {
		out.Deprecations[i].Entries = slices.Clone(out.Deprecations[i].Entries)
	}
	return out
}

// bundleVersion reads the version of the bundle's olm.package property.
func bundleVersion(b *fbc.Bundle) (string, error) {
	for _, p := range b.Properties {
		if p.Type != property.TypePackage {
			continue
		}
		var v property.Package
		if err := json.Unmarshal(p.Value, &v); err != nil {
			return "", fmt.Errorf("bundle %q of package %q: olm.package property: %v", b.Name, b.Package, err)
		}
		return v.Version, nil
	}
	return "", fmt.Errorf("bundle %q of package %q has no olm.package property, so no version", b.Name, b.Package)
}

// bundleSemver is bundleVersion parsed as semver; what is an error depends on the mode, so the
// message says why a version is needed.
func bundleSemver(b *fbc.Bundle, mode Mode) (semver.Version, error) {
	s, err := bundleVersion(b)
	if err != nil {
		return semver.Version{}, err
	}
	v, err := semver.Parse(s)
	if err != nil {
		return semver.Version{}, fmt.Errorf("bundle %q of package %q has version %q, which is not semver (%v): %s mode orders bundles by version; fix the version or use --mode replaces",
			b.Name, b.Package, s, err, mode)
	}
	return v, nil
}
