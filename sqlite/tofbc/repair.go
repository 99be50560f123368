package tofbc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
)

type semverVersion = semver.Version

// repairGraph makes a channel valid when the edges opm served leave it with several heads or with
// stranded bundles, which is where opm migrate fails. It never removes or changes a served edge; it
// only adds skips to each stranded entry (and each extra head), choosing the entry that skips it in
// this order:
//  0. the entry that already replaces it: opm's rule stops the replaces chain at a skipped bundle,
//     and counts a bundle as reachable when something skips it, so repeating a served replaces edge
//     in skips satisfies it without changing any upgrade path (the CSV usually declares that edge);
//  1. an entry whose own CSV declares the edge (spec.replaces or spec.skips, the operatorbundle
//     replaces/skips columns) but whose channel_entry rows lost it;
//  2. an entry of the replaces chain whose skipRange already covers the stranded version, so no
//     upgrade is allowed that the CSV did not already allow;
//  3. the lowest entry of the replaces chain newer than the stranded one.
//
// No edge is added that would close a cycle.
//
// Each added edge is a departure.
func (pc *packageConverter) repairGraph(g *channelGraph) {
	if len(g.entries) == 0 {
		return
	}
	preferred := ""
	if g.row != nil {
		preferred = g.row.Head.String
	}
	c := checkGraph(g.entries, preferred, pc.versionOf)
	if c.valid() {
		return
	}
	if len(c.heads) == 0 {
		pc.depart(Departure{Code: GraphUnrepaired, Channel: g.name,
			Opm:    "fails: no channel head found in graph (the replaces/skips edges form a cycle)",
			Olmcat: "writes the channel as served; fix the cycle before serving it"})
		return
	}
	for _, p := range c.stranded {
		x, code, why := pc.rescuer(g, c, p)
		if x == "" {
			continue
		}
		e := g.entries[x]
		e.Skips = append(e.Skips, p)
		pc.depart(Departure{Code: code, Channel: g.name, Bundle: x, AddedSkip: p,
			Opm:    opmGraphVerdict(c, p),
			Olmcat: fmt.Sprintf("adds %s to the skips of %s: %s", p, x, why)})
	}
	after := checkGraph(g.entries, preferred, pc.versionOf)
	if !after.valid() {
		problem := "multiple channel heads: " + strings.Join(after.heads, ", ")
		if len(after.heads) == 1 {
			problem = "stranded bundles: " + strings.Join(after.stranded, ", ")
		}
		pc.depart(Departure{Code: GraphUnrepaired, Channel: g.name,
			Opm:    opmGraphVerdict(c, ""),
			Olmcat: "could not repair the channel without a downgrade or a cycle; it is written with " + problem})
	}
}

// rescuer picks the chain entry that will skip p, and says which rule chose it.
func (pc *packageConverter) rescuer(g *channelGraph, c *graphCheck, p string) (string, DepartureCode, string) {
	declares := func(x string) bool {
		b := pc.bundles[x]
		return b != nil && (b.row.DeclaredReplaces == p || slices.Contains(b.row.DeclaredSkips, p))
	}
	for _, x := range sortedNames(g.entries) {
		if g.entries[x].Replaces != p {
			continue
		}
		if declares(x) {
			return x, CSVEdgeAdded, fmt.Sprintf("%s's CSV declares that it replaces %s and the served graph has that replaces edge; repeating it in skips makes opm count %s as skipped and changes no upgrade path", x, p, p)
		}
		return x, ReplacesRepeatedInSkips, fmt.Sprintf("%s already replaces %s in the served graph; repeating the edge in skips makes opm count %s as skipped and changes no upgrade path", x, p, p)
	}
	older := reachable(g.entries, p) // p's own predecessors: skipping p from one of them is a cycle
	for _, x := range sortedNames(g.entries) {
		if !older[x] && declares(x) {
			return x, CSVEdgeAdded, fmt.Sprintf("%s's CSV declares this edge (operatorbundle replaces/skips), but its channel_entry rows do not carry it", x)
		}
	}
	var candidates []string
	for i := len(c.chain) - 1; i >= 0; i-- { // lowest first
		if !older[c.chain[i]] {
			candidates = append(candidates, c.chain[i])
		}
	}
	pv := pc.versionOf(p)
	if pv != nil {
		for _, x := range candidates {
			b := pc.bundles[x]
			if b == nil || b.skipRange == "" {
				continue
			}
			if inRange, err := semver.ParseRange(b.skipRange); err == nil && inRange(*pv) {
				return x, SkipRangeEdgeAdded, fmt.Sprintf("%s's skipRange %q already lets %s upgrade to it", x, b.skipRange, p)
			}
		}
	}
	for _, x := range candidates {
		xv := pc.versionOf(x)
		if pv == nil || xv == nil || xv.GT(*pv) {
			return x, StrandedSkipAdded, fmt.Sprintf("%s is the lowest entry of the replaces chain from the head %s newer than %s, so %s keeps an upgrade path", x, c.head, p, p)
		}
	}
	return "", "", ""
}

// opmGraphVerdict says what opm does with the channel as served; p narrows it to one entry.
func opmGraphVerdict(c *graphCheck, p string) string {
	if len(c.heads) > 1 && (p == "" || slices.Contains(c.heads, p)) {
		return "fails: multiple channel heads found in graph: " + strings.Join(c.heads, ", ")
	}
	return "fails: channel contains one or more stranded bundles: " + strings.Join(c.stranded, ", ") +
		" (the replaces chain from " + c.head + " stops where it reaches a skipped bundle)"
}

func (pc *packageConverter) versionOf(name string) *semverVersion {
	if b := pc.bundles[name]; b != nil {
		return b.semver
	}
	return nil
}
