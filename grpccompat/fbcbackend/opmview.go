package fbcbackend

import (
	"context"
	"fmt"

	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// This file hands the served catalog to grpccompat/opmcache, which writes opm serve's own cache
// (its json format) from it: the package index opm keeps in packages.json, each channel entry's
// bundle as opm's cache stores it, and the custom-schema blobs. Reusing the backend keeps one
// conversion to api.Bundle for olmcat's answers and for opm's cache.

// IndexPackage is one package of the index, as opm's packages.json records it.
type IndexPackage struct {
	Name, Description, DefaultChannel string
	Icon                              *csvmeta.Icon // nil: no icon
	Deprecation                       *string
	Channels                          []IndexChannel // sorted by name
}

// IndexChannel is one channel of a package.
type IndexChannel struct {
	Name, Head  string
	Deprecation *string
	Entries     []IndexEntry // sorted by name
}

// IndexEntry is one channel entry: the bundle's name and its upgrade edges in this channel.
type IndexEntry struct {
	Name, Replaces string
	Skips          []string // nil when the entry has no skips field
}

// IndexPackages returns the packages sorted by name, with their channels and entries.
func (b *Backend) IndexPackages() []IndexPackage {
	out := make([]IndexPackage, 0, len(b.ix.Packages))
	for _, p := range b.ix.Packages {
		ip := IndexPackage{Name: p.Name, Description: p.Description, DefaultChannel: p.DefaultChannel,
			Icon: p.Icon, Deprecation: p.Deprecation, Channels: make([]IndexChannel, 0, len(p.Channels))}
		for _, c := range p.Channels {
			ic := IndexChannel{Name: c.Name, Head: c.Head, Deprecation: c.Deprecation, Entries: make([]IndexEntry, 0, len(c.Entries))}
			for _, e := range c.Entries {
				ic.Entries = append(ic.Entries, IndexEntry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips})
			}
			ip.Channels = append(ip.Channels, ic)
		}
		out = append(out, ip)
	}
	return out
}

// StoredBundle returns the bundle of one channel entry complete, as opm's cache stores it
// (api.ConvertModelBundleToAPIBundle): manifests, channel name, skipRange, replaces, skips and
// deprecation. Queries trim or drop parts of it; the cache keeps them all.
func (b *Backend) StoredBundle(pkgName, channelName, csvName string) (*api.Bundle, error) {
	p, c, err := b.lookup(pkgName, channelName)
	if err != nil {
		return nil, err
	}
	e, ok := c.byName[csvName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q, bundle %q not found", pkgName, channelName, csvName)
	}
	out, err := b.bundle(p, c, e, true)
	if err != nil {
		return nil, err
	}
	out.Replaces, out.Skips = e.Replaces, e.Skips
	return out, nil
}

// WalkCustomSchemaBlobs hands over every blob of a schema other than the four of olm (olm.package,
// olm.channel, olm.bundle, olm.deprecations), in catalog order grouped by (schema, package), each
// normalized as opm serve reads blobs (keys sorted, compact, <>& literal; no final newline). The
// package is "" for blobs that name none.
func (b *Backend) WalkCustomSchemaBlobs(ctx context.Context, fn func(schema, pkg string, normalized []byte) error) error {
	for _, g := range b.ix.Metas {
		for _, r := range g.Blobs {
			if err := ctx.Err(); err != nil {
				return err
			}
			raw, err := b.store.read(r)
			if err != nil {
				return fmt.Errorf("schema %q package %q: %w", g.Schema, g.Package, err)
			}
			if err := fn(g.Schema, g.Package, raw); err != nil {
				return err
			}
		}
	}
	return nil
}
