package model

import (
	"sort"

	"github.com/blang/semver/v4"
)

// UpgradeGraph answers "where can an installed bundle go from here" for one channel, the way OLM's
// resolver reads a channel: entry E is a successor of bundle B when E replaces B, E skips B, or B's
// version is in E's skipRange. B need not be an entry of the channel (a user may run a bundle that
// has since been removed), which is why successors are asked by name and version.
type UpgradeGraph struct {
	channel   *Channel
	replacing map[string][]string // name -> entries whose replaces is that name
	skipping  map[string][]string // name -> entries that skip that name
	ranges    []rangeEntry        // entries with a parsable skipRange, sorted by name
	edges     map[string][]string // successors of every entry, computed on first use
}

type rangeEntry struct {
	name    string
	inRange semver.Range
}

// NewUpgradeGraph indexes a channel's replaces, skips and skipRanges. Unparsable skipRanges take no
// part (validation reports them).
func NewUpgradeGraph(c *Channel) *UpgradeGraph {
	g := &UpgradeGraph{channel: c, replacing: map[string][]string{}, skipping: map[string][]string{}}
	for _, e := range c.SortedEntries() {
		if e.Replaces != "" {
			g.replacing[e.Replaces] = append(g.replacing[e.Replaces], e.Name)
		}
		for _, s := range e.Skips {
			g.skipping[s] = append(g.skipping[s], e.Name)
		}
		if e.SkipRange == "" {
			continue
		}
		if r, err := semver.ParseRange(e.SkipRange); err == nil {
			g.ranges = append(g.ranges, rangeEntry{name: e.Name, inRange: r})
		}
	}
	return g
}

// Successors returns the entries a bundle with this name (and version, when known) can upgrade to,
// sorted by name, without the bundle itself.
func (g *UpgradeGraph) Successors(name string, version *semver.Version) []string {
	set := map[string]bool{}
	for _, n := range g.replacing[name] {
		set[n] = true
	}
	for _, n := range g.skipping[name] {
		set[n] = true
	}
	if version != nil {
		for _, r := range g.ranges {
			if r.inRange(*version) {
				set[r.name] = true
			}
		}
	}
	delete(set, name)
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Edges returns the successors of every entry of the channel (entries without successors are absent).
func (g *UpgradeGraph) Edges() map[string][]string {
	if g.edges != nil {
		return g.edges
	}
	g.edges = make(map[string][]string, len(g.channel.Entries))
	for name, e := range g.channel.Entries {
		if next := g.Successors(name, EntryVersion(e)); len(next) > 0 {
			g.edges[name] = next
		}
	}
	return g.edges
}

// DistancesTo returns, for every entry from which target can be reached, the fewest upgrades needed
// to get there (0 for the target itself).
func (g *UpgradeGraph) DistancesTo(target string) map[string]int {
	reverse := map[string][]string{}
	for from, tos := range g.Edges() {
		for _, to := range tos {
			reverse[to] = append(reverse[to], from)
		}
	}
	return breadthFirst(map[string]int{target: 0}, []string{target}, reverse)
}

// ReachableFrom returns every entry that can be reached from the given successors through upgrade
// edges, with the fewest upgrades from the start (the given successors are 1 upgrade away).
func (g *UpgradeGraph) ReachableFrom(successors []string) map[string]int {
	dist := map[string]int{}
	var queue []string
	for _, s := range successors {
		if _, seen := dist[s]; !seen {
			dist[s] = 1
			queue = append(queue, s)
		}
	}
	return breadthFirst(dist, queue, g.Edges())
}

// breadthFirst extends dist (the distances of the queued names) along next, one step at a time.
func breadthFirst(dist map[string]int, queue []string, next map[string][]string) map[string]int {
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, n := range next[cur] {
			if _, seen := dist[n]; !seen {
				dist[n] = dist[cur] + 1
				queue = append(queue, n)
			}
		}
	}
	return dist
}

// EntryVersion returns the version of the entry's bundle, or nil when it has no bundle or the
// bundle's version does not parse.
func EntryVersion(e *Entry) *semver.Version {
	if e == nil || e.Bundle == nil || e.Bundle.VersionErr != nil || e.Bundle.VersionString == "" {
		return nil
	}
	v := e.Bundle.Version
	return &v
}
