// Package model is the semantic view of a catalog: packages own channels and bundles, channels own
// an upgrade graph. It is built from the serialized form (package fbc) and is what validation,
// serving, diffing and conversion reason about. Building a model does not validate it; see Validate.
package model

import (
	"encoding/json"
	"sort"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
)

// Model is a whole catalog.
type Model struct {
	Packages map[string]*Package
	// Others are blobs of non-core schemas, kept verbatim.
	Others []fbc.Meta
}

// Package is one operator package.
type Package struct {
	Name           string
	DefaultChannel string
	Icon           *fbc.Icon
	Description    string
	Properties     []fbc.Property
	Channels       map[string]*Channel
	Bundles        map[string]*Bundle
	Deprecation    *Deprecation
	Loc            fbc.Location
}

// Channel is one upgrade graph of a package.
type Channel struct {
	Package     *Package
	Name        string
	Entries     map[string]*Entry
	Properties  []fbc.Property
	Deprecation *Deprecation
	Loc         fbc.Location
}

// Entry is one node of a channel's graph. Bundle is nil when no olm.bundle blob has the entry's name.
type Entry struct {
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	Bundle    *Bundle
}

// Bundle is one operator version. A bundle belongs to its package and may be in several channels.
type Bundle struct {
	Package       *Package
	Name          string
	Image         string
	Properties    []fbc.Property
	RelatedImages []fbc.RelatedImage
	// Version is the olm.package property's version; VersionString is as written (it may not parse).
	Version       semver.Version
	VersionString string
	VersionErr    error
	// Release is the olm.package property's release ("" when none), as written.
	Release     string
	Deprecation *Deprecation
	Loc         fbc.Location
}

// Deprecation is a deprecation message attached to a package, channel or bundle.
type Deprecation struct {
	Message string
}

// SortedPackages returns the packages ordered by name.
func (m *Model) SortedPackages() []*Package {
	out := make([]*Package, 0, len(m.Packages))
	for _, p := range m.Packages {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SortedChannels returns the package's channels ordered by name.
func (p *Package) SortedChannels() []*Channel {
	out := make([]*Channel, 0, len(p.Channels))
	for _, c := range p.Channels {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SortedBundles returns the package's bundles ordered by name.
func (p *Package) SortedBundles() []*Bundle {
	out := make([]*Bundle, 0, len(p.Bundles))
	for _, b := range p.Bundles {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SortedEntries returns the channel's entries ordered by name.
func (c *Channel) SortedEntries() []*Entry {
	out := make([]*Entry, 0, len(c.Entries))
	for _, e := range c.Entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ChannelsOf returns the names of the channels that hold the bundle, sorted.
func (p *Package) ChannelsOf(bundle string) []string {
	var out []string
	for name, c := range p.Channels {
		if _, ok := c.Entries[bundle]; ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// PropertiesOfType returns the raw values of the bundle's properties of one type.
func (b *Bundle) PropertiesOfType(typ string) []json.RawMessage {
	var out []json.RawMessage
	for _, p := range b.Properties {
		if p.Type == typ {
			out = append(out, p.Value)
		}
	}
	return out
}
