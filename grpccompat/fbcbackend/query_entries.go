package fbcbackend

import (
	"context"
	"fmt"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// GetChannelEntriesThatReplace returns, for every entry that replaces or skips csvName, one entry
// per matching edge; for a skip edge the reported replaces is the entry's own replaces (opm's
// rule, unlike the SQL backend's).
func (b *Backend) GetChannelEntriesThatReplace(_ context.Context, csvName string) ([]*api.ChannelEntry, error) {
	var out []*api.ChannelEntry
	b.eachEntry(func(p *pkgIndex, c *channelIndex, e *entryIndex) {
		if e.Replaces == csvName {
			out = append(out, channelEntry(p, c, e, e.Replaces))
		}
		for _, s := range e.Skips {
			if s == csvName && s != e.Replaces {
				out = append(out, channelEntry(p, c, e, e.Replaces))
			}
		}
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that replace %s", csvName)
	}
	return out, nil
}

// GetChannelEntriesThatProvide returns the entries of every bundle providing the API: one with the
// bundle's replaces, plus one per skip (even skips of names not in the channel).
func (b *Backend) GetChannelEntriesThatProvide(_ context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	want := gvk{group, version, kind}
	var out []*api.ChannelEntry
	b.eachEntry(func(p *pkgIndex, c *channelIndex, e *entryIndex) {
		if b.provides(e, want) {
			out = append(out, entriesForBundle(p, c, e, true)...)
		}
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide group:%q version:%q kind:%q", group, version, kind)
	}
	return out, nil
}

// GetLatestChannelEntriesThatProvide looks at channel heads only: a providing head gives its
// replaces entry plus one per skip that is in the same channel.
func (b *Backend) GetLatestChannelEntriesThatProvide(_ context.Context, group, version, kind string) ([]*api.ChannelEntry, error) {
	want := gvk{group, version, kind}
	var out []*api.ChannelEntry
	for _, p := range b.ix.Packages {
		for _, c := range p.Channels {
			head := c.byName[c.Head]
			if head != nil && b.provides(head, want) {
				out = append(out, entriesForBundle(p, c, head, false)...)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no channel entries found that provide group:%q version:%q kind:%q", group, version, kind)
	}
	return out, nil
}

func (b *Backend) eachEntry(fn func(*pkgIndex, *channelIndex, *entryIndex)) {
	for _, p := range b.ix.Packages {
		for _, c := range p.Channels {
			for _, e := range c.Entries {
				fn(p, c, e)
			}
		}
	}
}

func (b *Backend) provides(e *entryIndex, want gvk) bool {
	for _, g := range b.ix.Bundles[e.Bundle].Provided {
		if g == want {
			return true
		}
	}
	return false
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
