package tofbc

import (
	"fmt"
	"sort"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite"
)

// channelGraph is one channel of the package being converted.
type channelGraph struct {
	name    string
	row     *sqlite.ChannelRow // nil for a channel that only channel_entry names
	entries map[string]*fbc.ChannelEntry
}

func (g *channelGraph) blob(pkg string) fbc.Channel {
	ch := fbc.Channel{Schema: fbc.SchemaChannel, Name: g.name, Package: pkg, Entries: []fbc.ChannelEntry{}}
	for _, name := range sortedNames(g.entries) {
		ch.Entries = append(ch.Entries, *g.entries[name])
	}
	return ch
}

// buildChannels places every kept bundle in its channels with the edges opm's ListBundles serves.
func (pc *packageConverter) buildChannels() {
	pc.channels = map[string]*channelGraph{}
	for i := range pc.data.Channels {
		row := &pc.data.Channels[i]
		pc.channels[row.Name] = &channelGraph{name: row.Name, row: row, entries: map[string]*fbc.ChannelEntry{}}
	}
	for _, s := range pc.data.Served {
		b := pc.bundles[s.Bundle]
		if !s.Exists || b == nil {
			continue
		}
		g := pc.channels[s.Channel]
		if g == nil {
			g = &channelGraph{name: s.Channel, entries: map[string]*fbc.ChannelEntry{}}
			pc.channels[s.Channel] = g
			pc.depart(Departure{Code: ChannelAdded, Channel: s.Channel,
				Opm:    fmt.Sprintf("fails: unknown channel %q (channel_entry rows name it, table channel does not)", s.Channel),
				Olmcat: "writes the channel from its entries"})
		}
		g.entries[s.Bundle] = &fbc.ChannelEntry{Name: s.Bundle, Replaces: s.Replaces,
			Skips: append([]string(nil), s.Skips...), SkipRange: b.skipRange}
	}
}

// dropEmptyChannels removes channels without entries (opm fails on them).
func (pc *packageConverter) dropEmptyChannels() {
	for _, name := range sortedNames(pc.channels) {
		if len(pc.channels[name].entries) > 0 {
			continue
		}
		delete(pc.channels, name)
		pc.depart(Departure{Code: EmptyChannelDropped, Channel: name,
			Opm:    fmt.Sprintf("fails: invalid channel %q: channel must contain at least one bundle", name),
			Olmcat: "leaves the channel out"})
	}
}

// graphCheck is a channel judged by opm's graph rules (v1.72 migrate and v1.73 validate alike):
// exactly one head (an entry no other entry replaces or skips); from it, replaces are followed until
// a name that is not an entry, an entry already visited, or a name some entry skips; every entry must
// be on that chain or skipped by some entry.
type graphCheck struct {
	heads    []string
	head     string
	chain    []string
	stranded []string
}

func checkGraph(entries map[string]*fbc.ChannelEntry, preferredHead string, version func(string) *semverVersion) *graphCheck {
	c := &graphCheck{}
	incoming := map[string]bool{}
	skipped := map[string]bool{}
	for _, e := range entries {
		if _, ok := entries[e.Replaces]; ok {
			incoming[e.Replaces] = true
		}
		for _, s := range e.Skips {
			if _, ok := entries[s]; ok {
				incoming[s] = true
			}
			skipped[s] = true
		}
	}
	for _, name := range sortedNames(entries) {
		if !incoming[name] {
			c.heads = append(c.heads, name)
		}
	}
	if len(c.heads) == 0 {
		return c
	}
	c.head = pickHead(c.heads, preferredHead, version)
	onChain := map[string]bool{}
	for cur := entries[c.head]; cur != nil && !onChain[cur.Name]; cur = entries[cur.Replaces] {
		onChain[cur.Name] = true
		c.chain = append(c.chain, cur.Name)
		if skipped[cur.Replaces] {
			break
		}
	}
	for _, name := range sortedNames(entries) {
		if !onChain[name] && !skipped[name] {
			c.stranded = append(c.stranded, name)
		}
	}
	return c
}

func (c *graphCheck) valid() bool { return len(c.heads) == 1 && len(c.stranded) == 0 }

// pickHead chooses the channel's head among several candidates: the highest version (so that the
// others can be skipped from it without a downgrade), then the channel row's head, then the greatest
// name.
func pickHead(heads []string, preferred string, version func(string) *semverVersion) string {
	best := heads[0]
	for _, h := range heads[1:] {
		vb, vh := version(best), version(h)
		switch {
		case vb != nil && vh != nil && !vh.EQ(*vb):
			if vh.GT(*vb) {
				best = h
			}
		case vb == nil && vh != nil:
			best = h
		case vb != nil && vh == nil:
		case h == preferred || (best != preferred && h > best):
			best = h
		}
	}
	return best
}

// reachable is every entry that from can upgrade from: the entries its replaces and skips lead to,
// transitively. Adding "x skips from" would make a cycle if x is among them.
func reachable(entries map[string]*fbc.ChannelEntry, from string) map[string]bool {
	seen := map[string]bool{from: true}
	stack := []string{from}
	for len(stack) > 0 {
		e := entries[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		next := append([]string{e.Replaces}, e.Skips...)
		for _, n := range next {
			if _, ok := entries[n]; ok && !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return seen
}

// sortedStrings returns a sorted copy.
func sortedStrings(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}
