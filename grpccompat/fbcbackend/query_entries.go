package fbcbackend

import (
	"context"
	"fmt"
	"slices"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// GetChannelEntriesThatReplace returns, for every entry that replaces or skips csvName, one entry
// per matching edge; for a skip edge the reported replaces is the entry's own replaces (opm's
// rule, unlike the SQL backend's).
func (b *Backend) GetChannelEntriesThatReplace(_ context.Context, csvName string) ([]*api.ChannelEntry, error) {
	var out []*api.ChannelEntry
	for _, r := range b.lookups().replacers[csvName] {
		out = append(out, channelEntry(r.p, r.c, r.e, r.e.Replaces))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", csvName)
	}
	return out, nil
}

// GetChannelEntriesThatProvide returns the entries of every bundle providing the API: one with the
// bundle's replaces, plus one per skip (even skips of names not in the channel).
func (b *Backend) GetChannelEntriesThatProvide(_ context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	var out []*api.ChannelEntry
	for _, r := range b.lookups().providers[gvk{group, version, kind}] {
		out = append(out, entriesForBundle(r.p, r.c, r.e, true)...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide group:%q version:%q kind:%q", group, version, kind)
	}
	return out, nil
}

// GetLatestChannelEntriesThatProvide looks at channel heads only: a providing head gives its
// replaces entry plus one per skip that is in the same channel.
func (b *Backend) GetLatestChannelEntriesThatProvide(_ context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	var out []*api.ChannelEntry
	for _, r := range b.lookups().headProviders[gvk{group, version, kind}] {
		out = append(out, entriesForBundle(r.p, r.c, r.e, false)...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide group:%q version:%q kind:%q", group, version, kind)
	}
	return out, nil
}

// entryRef is one entry of one channel.
type entryRef struct {
	p *pkgIndex
	c *channelIndex
	e *entryIndex
}

// entryLookups answer the reverse questions (who replaces X, who provides G) at the cost of the
// answer instead of a walk over every entry of the catalog per call. Each list is in catalog order
// (package, channel, entry), the order opm answers in.
type entryLookups struct {
	replacers     map[string][]entryRef // one ref per edge: replaces, then each other skip
	providers     map[gvk][]entryRef    // every entry whose bundle provides the API
	headProviders map[gvk][]entryRef    // channel heads whose bundle provides the API
}

// lookups builds the reverse lookups on first use, so that serving starts no later for them.
func (b *Backend) lookups() *entryLookups {
	b.lookupsOnce.Do(func() {
		l := &entryLookups{replacers: map[string][]entryRef{}, providers: map[gvk][]entryRef{}, headProviders: map[gvk][]entryRef{}}
		for _, p := range b.ix.Packages {
			for _, c := range p.Channels {
				for _, e := range c.Entries {
					r := entryRef{p, c, e}
					l.replacers[e.Replaces] = append(l.replacers[e.Replaces], r)
					for _, s := range e.Skips {
						if s != e.Replaces {
							l.replacers[s] = append(l.replacers[s], r)
						}
					}
					for _, g := range b.providedOnce(e) {
						l.providers[g] = append(l.providers[g], r)
					}
				}
				if head := c.byName[c.Head]; head != nil {
					for _, g := range b.providedOnce(head) {
						l.headProviders[g] = append(l.headProviders[g], entryRef{p, c, head})
					}
				}
			}
		}
		b.entryLookups = l
	})
	return b.entryLookups
}

// providedOnce lists the APIs an entry's bundle provides, each once.
func (b *Backend) providedOnce(e *entryIndex) []gvk {
	provided := b.ix.Bundles[e.Bundle].Provided
	out := make([]gvk, 0, len(provided))
	for _, g := range provided {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

func channelEntry(p *pkgIndex, c *channelIndex, e *entryIndex, replaces string) *api.ChannelEntry {
	return &api.ChannelEntry{PackageName: p.Name, ChannelName: c.Name, BundleName: e.Name, Replaces: replaces}
}

func entriesForBundle(p *pkgIndex, c *channelIndex, e *entryIndex, anySkip bool) []*api.ChannelEntry {
	out := []*api.ChannelEntry{channelEntry(p, c, e, e.Replaces)}
	for _, s := range e.Skips {
		if _, inChannel := c.byName[s]; s != e.Replaces && (anySkip || inChannel) {
			out = append(out, channelEntry(p, c, e, s))
		}
	}
	return out
}
