package model

import (
	"sort"

	"github.com/blang/semver/v4"
)

// UpgradeGraph is the one reading of a channel's upgrades that the validator, the diff and the
// pictures share: OLM v0's resolver's (UPGRADES.md gives the rules and where OLM's code says so).
//
//   - The head is the entry no other entry replaces or skips.
//   - The channel order is the replaces chain from the head, leaving out every entry that some
//     entry skips. Only entries of the channel order are ever upgraded to: a skipped entry, or one
//     off the replaces chain, is never offered.
//   - A user on bundle B (named B, at version V; B need not be an entry any more) is offered every
//     entry of the channel order that replaces B, skips B, or whose skipRange covers V; OLM takes
//     the one nearest the head.
type UpgradeGraph struct {
	channel   *Channel
	heads     []string
	head      string         // the head the order starts from ("" for none)
	order     []string       // OLM's channel order: the entries that can be upgraded to, head first
	rank      map[string]int // position of each entry of order
	skippers  map[string][]string
	replacing map[string][]string // name -> entries of the order whose replaces is that name
	skipping  map[string][]string // name -> entries of the order that skip that name
	ranges    []rangeEntry        // entries of the order with a parsable skipRange, in order
	edges     map[string][]string
	dest      map[string]Destination // where OLM takes the users of each entry, computed on first use
}

// Destination is where OLM takes the users of a bundle: after Hops upgrades they are on End, the
// head when ReachesHead (the head itself: 0 upgrades, End the head).
type Destination struct {
	Hops        int
	End         string
	ReachesHead bool
}

type rangeEntry struct {
	name    string
	inRange semver.Range
}

// NewUpgradeGraph reads a channel as OLM's resolver does. A channel OLM cannot resolve (several
// heads) is read from its highest-versioned head, so that callers can still say whom the other
// heads cut off. Unparsable skipRanges take no part.
func NewUpgradeGraph(c *Channel) *UpgradeGraph {
	g := &UpgradeGraph{channel: c, heads: c.Heads(), rank: map[string]int{},
		replacing: map[string][]string{}, skipping: map[string][]string{}, skippers: map[string][]string{}}
	for _, e := range c.SortedEntries() {
		for _, s := range e.Skips {
			if _, ok := c.Entries[s]; ok {
				g.skippers[s] = append(g.skippers[s], e.Name)
			}
		}
	}
	g.head = highestVersion(c, g.heads)
	walked := map[string]bool{}
	for cur := c.Entries[g.head]; cur != nil; cur = c.Entries[cur.Replaces] {
		if walked[cur.Name] {
			break // a replaces cycle: OLM refuses the channel; the order ends where it closes
		}
		walked[cur.Name] = true
		if len(g.skippers[cur.Name]) == 0 {
			g.rank[cur.Name] = len(g.order)
			g.order = append(g.order, cur.Name)
		}
	}
	for _, name := range g.order {
		e := c.Entries[name]
		if e.Replaces != "" {
			g.replacing[e.Replaces] = append(g.replacing[e.Replaces], name)
		}
		for _, s := range e.Skips {
			g.skipping[s] = append(g.skipping[s], name)
		}
		if e.SkipRange == "" {
			continue
		}
		if r, err := semver.ParseRange(e.SkipRange); err == nil {
			g.ranges = append(g.ranges, rangeEntry{name: name, inRange: r})
		}
	}
	return g
}

// Head is the channel head the graph is read from ("" when the channel has none).
func (g *UpgradeGraph) Head() string { return g.head }

// Heads are all entries nothing replaces or skips, sorted by name.
func (g *UpgradeGraph) Heads() []string { return g.heads }

// Order is OLM's channel order: the entries that can be upgraded to, head first.
func (g *UpgradeGraph) Order() []string { return g.order }

// Skippers are the entries that skip the named entry, sorted by name.
func (g *UpgradeGraph) Skippers(name string) []string { return g.skippers[name] }

// Successors returns the entries OLM offers a user of this bundle (name and, when known, version),
// in OLM's order of preference: nearest the head first. As in OLM (getSubscriptionVariables filters
// the channel order with no exception for the installed CSV), the bundle itself is among them when
// its own entry replaces or skips its name or its skipRange covers its version, and offers of a
// lower version (downgrades) are listed like any other.
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
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return g.rank[out[i]] < g.rank[out[j]] })
	return out
}

// Naming returns the entries of the channel, offered or not, whose replaces, skips or skipRange
// name this bundle (the bundle itself left out), sorted by name: with Successors, what a message
// needs to say which of them OLM ignores.
func (g *UpgradeGraph) Naming(name string, version *semver.Version) []string {
	var out []string
	for _, e := range g.channel.SortedEntries() {
		if e.Name == name {
			continue
		}
		named := e.Replaces == name
		for _, s := range e.Skips {
			named = named || s == name
		}
		if !named && version != nil && e.SkipRange != "" {
			if r, err := semver.ParseRange(e.SkipRange); err == nil && r(*version) {
				named = true
			}
		}
		if named {
			out = append(out, e.Name)
		}
	}
	return out
}

// Next is the offer OLM takes for a user of this bundle (the one nearest the head), "" for none or
// when that offer is the bundle itself: OLM then keeps its users where they are.
func (g *UpgradeGraph) Next(name string, version *semver.Version) string {
	if next := g.Successors(name, version); len(next) > 0 && next[0] != name {
		return next[0]
	}
	return ""
}

// Destination says where OLM takes a user of this bundle: each step the offer nearest the head,
// until the head, a bundle offered nothing, or a bundle already passed (a loop). Hops counts the
// upgrades to the head; it is 0 when the head is out of reach.
// The first step matches the version given (the installed one), the later ones the entries'.
func (g *UpgradeGraph) Destination(name string, version *semver.Version) Destination {
	if name == g.head && name != "" {
		return Destination{End: name, ReachesHead: true}
	}
	next := g.Next(name, version)
	if next == "" {
		return Destination{End: name}
	}
	d := g.entryDestination(next)
	if d.ReachesHead {
		d.Hops++
	}
	return d
}

// entryDestination is Destination for an entry, remembered: each entry's way is walked once.
func (g *UpgradeGraph) entryDestination(name string) Destination {
	if d, ok := g.dest[name]; ok {
		return d
	}
	if g.dest == nil {
		g.dest = make(map[string]Destination, len(g.channel.Entries))
	}
	var walk []string
	onWalk := map[string]bool{}
	var d Destination // where the walk's last entry leads
	for cur := name; ; {
		if known, ok := g.dest[cur]; ok {
			d = known
			break
		}
		if onWalk[cur] {
			d = Destination{End: walk[len(walk)-1]}
			break
		}
		next := ""
		if cur != g.head {
			next = g.Next(cur, EntryVersion(g.channel.Entries[cur]))
		}
		if next == "" {
			d = Destination{End: cur, ReachesHead: cur == g.head}
			g.dest[cur] = d
			break
		}
		onWalk[cur] = true
		walk = append(walk, cur)
		cur = next
	}
	for i := len(walk) - 1; i >= 0; i-- {
		if d.ReachesHead {
			d.Hops++
		}
		g.dest[walk[i]] = d
	}
	return g.dest[name]
}

// Path lists the upgrades Destination counts, one bundle per step (the bundle itself left out).
func (g *UpgradeGraph) Path(name string, version *semver.Version) (path []string, reachesHead bool) {
	seen := map[string]bool{name: true}
	for cur := name; cur != g.head || g.head == ""; {
		next := g.Next(cur, version)
		if next == "" || seen[next] {
			return path, false
		}
		cur = next
		seen[cur] = true
		path = append(path, cur)
		version = EntryVersion(g.channel.Entries[cur])
	}
	return path, true
}

// Edges returns every offer: for each entry of the channel, the entries OLM offers its users, in
// order of preference (entries offered nothing are absent).
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

// highestVersion picks, among names of the channel, the one with the highest version (ties and
// unparsable versions by name, last wins), "" for none.
func highestVersion(c *Channel, names []string) string {
	best := ""
	var bestV *semver.Version
	for _, n := range names {
		v := EntryVersion(c.Entries[n])
		if best == "" || (v != nil && (bestV == nil || v.GTE(*bestV))) {
			best, bestV = n, v
		}
	}
	return best
}

// EntryVersion returns the version OLM matches skipRanges against once the entry's bundle is
// installed: its CSV's spec.version, which OLM reads with semver.ParseTolerant
// (operator-framework/api OperatorVersion), so "v1.2.3" and "1.2" are read as 1.2.3 and 1.2.0 though
// opm refuses them in a catalog. Nil when the entry has no bundle or no parser accepts its version.
func EntryVersion(e *Entry) *semver.Version {
	if e == nil || e.Bundle == nil || e.Bundle.VersionString == "" {
		return nil
	}
	if e.Bundle.VersionErr == nil {
		v := e.Bundle.Version
		return &v
	}
	v, err := semver.ParseTolerant(e.Bundle.VersionString)
	if err != nil {
		return nil
	}
	return &v
}
