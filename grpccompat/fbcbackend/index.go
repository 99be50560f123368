package fbcbackend

import (
	"errors"
	"fmt"
	"sort"

	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// index is everything the queries need except bundle bodies: packages, channels, upgrade edges
// and each bundle's small API fields. It is what the cache stores (gob) and what serving holds in
// memory; bodies stay in the store.
type index struct {
	Packages []*pkgIndex // sorted by name
	Bundles  []*bundleIndex
	Metas    []*metaGroup // custom-schema blobs by (schema, package), in catalog order
}

type pkgIndex struct {
	Name           string
	DefaultChannel string
	Description    string
	Icon           *csvmeta.Icon
	Deprecation    *string
	Channels       []*channelIndex // sorted by name

	byName map[string]*channelIndex
}

type channelIndex struct {
	Name        string
	Head        string
	Deprecation *string
	Entries     []*entryIndex // sorted by name

	byName map[string]*entryIndex
}

type entryIndex struct {
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	Bundle    int // index into index.Bundles
}

type bundleIndex struct {
	Light       []byte // deterministic protobuf of the channel-independent api.Bundle fields
	HasImage    bool   // bundlePath is set: ListBundles leaves the manifests out
	Provided    []gvk
	Body        ref
	Deprecation *string
}

type metaGroup struct {
	Schema, Package string
	Blobs           []ref
}

// link builds the lookup maps after the index was built or decoded.
func (ix *index) link() map[string]*pkgIndex {
	byName := make(map[string]*pkgIndex, len(ix.Packages))
	for _, p := range ix.Packages {
		byName[p.Name] = p
		p.byName = make(map[string]*channelIndex, len(p.Channels))
		for _, c := range p.Channels {
			p.byName[c.Name] = c
			c.byName = make(map[string]*entryIndex, len(c.Entries))
			for _, e := range c.Entries {
				c.byName[e.Name] = e
			}
		}
	}
	return byName
}

// listKey is one ListBundles row.
type listKey struct {
	pkg   *pkgIndex
	ch    *channelIndex
	entry *entryIndex
}

// listOrder is opm serve's ListBundles order: by channel name, then package name, then bundle.
// Packages and each channel's entries are sorted already, so only the channels need sorting (a
// stable sort keeps package order among channels of one name).
func (ix *index) listOrder() []listKey {
	type channelOf struct {
		pkg *pkgIndex
		ch  *channelIndex
	}
	var channels []channelOf
	rows := 0
	for _, p := range ix.Packages {
		for _, c := range p.Channels {
			channels = append(channels, channelOf{p, c})
			rows += len(c.Entries)
		}
	}
	sort.SliceStable(channels, func(i, j int) bool { return channels[i].ch.Name < channels[j].ch.Name })
	keys := make([]listKey, 0, rows)
	for _, c := range channels {
		for _, e := range c.ch.Entries {
			keys = append(keys, listKey{c.pkg, c.ch, e})
		}
	}
	return keys
}

// channelHead returns the one entry nothing else in the channel replaces or skips ("" when there
// is not exactly one; validation refuses such catalogs).
func channelHead(entries []*entryIndex) string {
	incoming := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.Replaces != "" {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	head := ""
	for _, e := range entries {
		if !incoming[e.Name] {
			if head != "" {
				return ""
			}
			head = e.Name
		}
	}
	return head
}

// check refuses an index that serving could not walk: a nil package, channel, entry, bundle or
// group, an entry naming a bundle that is not there, a channel head that is not an entry, or a body outside the body store of
// bodiesSize bytes. A cache's checksums detect damage, not forgery (whoever writes the cache
// can rewrite them): a forged index must be an error at start, not a panic or a gigabyte
// allocation at the first request.
func (ix *index) check(bodiesSize int64) error {
	inStore := func(r ref) bool { return r.Off >= 0 && r.Off <= bodiesSize && int64(r.Len) <= bodiesSize-r.Off }
	for _, p := range ix.Packages {
		if p == nil {
			return errors.New("a package is missing")
		}
		for _, c := range p.Channels {
			if c == nil {
				return fmt.Errorf("package %q: a channel is missing", p.Name)
			}
			head := false
			for _, e := range c.Entries {
				if e == nil {
					return fmt.Errorf("package %q channel %q: an entry is missing", p.Name, c.Name)
				}
				if e.Bundle < 0 || e.Bundle >= len(ix.Bundles) || ix.Bundles[e.Bundle] == nil {
					return fmt.Errorf("package %q channel %q entry %q: bundle %d is not in the index", p.Name, c.Name, e.Name, e.Bundle)
				}
				head = head || e.Name == c.Head
			}
			if !head {
				return fmt.Errorf("package %q channel %q: its head %q is not one of its entries", p.Name, c.Name, c.Head)
			}
		}
	}
	for i, b := range ix.Bundles {
		if b != nil && !inStore(b.Body) {
			return fmt.Errorf("bundle %d: its body (%d bytes at %d) lies outside bodies.bin (%d bytes)", i, b.Body.Len, b.Body.Off, bodiesSize)
		}
	}
	for _, g := range ix.Metas {
		if g == nil {
			return errors.New("a group of blobs is missing")
		}
		for _, r := range g.Blobs {
			if !inStore(r) {
				return fmt.Errorf("schema %q package %q: a blob (%d bytes at %d) lies outside bodies.bin (%d bytes)", g.Schema, g.Package, r.Len, r.Off, bodiesSize)
			}
		}
	}
	return nil
}
