package model

import (
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
)

// validateGraph applies opm's channel graph rules (one head, no cycle on the replaces chain, no
// stranded bundle: errors), then looks for what opm does not (warnings): cycles through skips,
// skipped bundles that the replaces chain still runs through, and bundles with no upgrade path to
// the head.
func validateGraph(ch *Channel) Issues {
	if len(ch.Entries) == 0 {
		return nil
	}
	var issues Issues
	add := func(sev Severity, rule, bundle, hint, format string, args ...any) {
		issues = append(issues, newIssue(sev, rule, ch.Loc, ch.Package.Name, ch.Name, bundle, hint, format, args...))
	}
	heads := ch.Heads()
	cycles := ch.Cycles()
	switch len(heads) {
	case 0:
		hint := "make exactly one entry (the newest) that no other entry replaces or skips"
		if len(cycles) > 0 {
			hint = "break the cycle " + strings.Join(cycles[0], " -> ") + ": every entry is replaced or skipped by another, so none can be the head"
		}
		add(Error, "no-head", "", hint, "invalid channel %q: no channel head found in graph", ch.Name)
		return issues
	case 1:
	default:
		add(Error, "multiple-heads", "", "make the older heads replaced or skipped by the newest entry, so one head remains",
			"invalid channel %q: multiple channel heads found in graph: %s", ch.Name, strings.Join(heads, ", "))
		return issues
	}
	head := heads[0]

	if cycle := replacesCycleFromHead(ch, head); cycle != nil {
		add(Error, "replaces-cycle", "", "remove one replaces edge of the cycle",
			"invalid channel %q: detected cycle in replaces chain of upgrade graph: %s", ch.Name, strings.Join(cycle, " -> "))
		return issues
	}
	stranded := ch.Stranded(head)
	if len(stranded) > 0 {
		add(Error, "stranded-bundles", "", "make each of them replaced (on the chain from the head) or skipped by an entry of the channel",
			"invalid channel %q: channel contains one or more stranded bundles: %s", ch.Name, strings.Join(stranded, ", "))
	}

	for _, cycle := range cycles {
		add(Warning, "upgrade-cycle", cycle[0], "remove one of the replaces/skips edges of the cycle",
			"upgrade graph has a cycle through replaces/skips: %s; OLM v0 may offer an upgrade back to an older bundle", strings.Join(cycle, " -> "))
		issues[len(issues)-1].ForOLM(OLMv0)
	}
	g := NewUpgradeGraph(ch)
	issues = append(issues, skippedOnReplacesChain(ch, head, g)...)
	issues = append(issues, unreachableFromHead(ch, g, stranded)...)
	issues = append(issues, downgradesOffered(ch, g)...)
	return issues
}

// replacesCycleFromHead walks replaces from the head as opm does: it stops at a name that is not
// an entry or that some entry skips, and returns the cycle (closed path) if a name comes back.
func replacesCycleFromHead(ch *Channel, head string) []string {
	skipped := skippedNames(ch)
	pos := map[string]int{head: 0}
	path := []string{head}
	cur := ch.Entries[head]
	for cur != nil && cur.Replaces != "" && !skipped[cur.Replaces] {
		if i, seen := pos[cur.Replaces]; seen {
			return append(append([]string(nil), path[i:]...), cur.Replaces)
		}
		pos[cur.Replaces] = len(path)
		path = append(path, cur.Replaces)
		cur = ch.Entries[cur.Replaces]
	}
	return nil
}

func skippedNames(ch *Channel) map[string]bool {
	skipped := map[string]bool{}
	for _, e := range ch.Entries {
		for _, s := range e.Skips {
			skipped[s] = true
		}
	}
	return skipped
}

// skippedOnReplacesChain finds skipped entries that the replaces chain from the head runs through
// and that replace another entry themselves. OLM v0 never upgrades to a skipped entry, so that
// replaces edge offers the entry below nothing.
func skippedOnReplacesChain(ch *Channel, head string, g *UpgradeGraph) Issues {
	chain, _ := ch.ReplacesChain(head)
	var issues Issues
	for i := 1; i+1 < len(chain); i++ {
		name, below := chain[i], chain[i+1]
		by := g.Skippers(name)
		if len(by) == 0 {
			continue
		}
		// its skips are as dead as its replaces: saying only the replaces leaves a reviewer to
		// wonder why the bundles it skips are unreachable too
		dead := []string{below}
		for _, s := range ch.Entries[name].Skips {
			if s != below && ch.Entries[s] != nil {
				dead = append(dead, s)
			}
		}
		what := fmt.Sprintf("its replaces %q has no effect", below)
		if len(dead) > 1 {
			what = fmt.Sprintf("its replaces %q and its skips have no effect: %s get no upgrade through it", below, strings.Join(dead, ", "))
		}
		issues = append(issues, newIssue(Warning, "skipped-on-replaces-chain", ch.Loc, ch.Package.Name, ch.Name, name,
			fmt.Sprintf("drop %q from the skips of %s, or let the skipping entries replace or skip %s themselves", name, strings.Join(by, ", "), strings.Join(quoteAll(dead), ", ")),
			"bundle %q is on the replaces chain but skipped by %s: OLM v0 never upgrades to a skipped bundle, so %s",
			name, strings.Join(by, ", "), what).ForOLM(OLMv0))
	}
	return issues
}

// unreachableFromHead finds the entries whose users OLM never brings to the head (UpgradeGraph.Path):
// one issue per entry, so that the diff of two revisions names exactly the entries that changed.
// Bundles already reported as stranded are left out.
func unreachableFromHead(ch *Channel, g *UpgradeGraph, stranded []string) Issues {
	reported := map[string]bool{g.Head(): true}
	for _, s := range stranded {
		reported[s] = true
	}
	var issues Issues
	for _, e := range ch.SortedEntries() {
		if reported[e.Name] {
			continue
		}
		if g.Destination(e.Name, EntryVersion(e)).ReachesHead {
			continue
		}
		path, _ := g.Path(e.Name, EntryVersion(e))
		end, msg := e.Name, fmt.Sprintf("OLM v0 offers the users of %q no upgrade: no entry OLM v0 upgrades to (on the head's replaces chain, skipped by none) replaces, skips or covers it", e.Name)
		if dead := g.Naming(e.Name, EntryVersion(e)); len(dead) == 1 {
			msg += fmt.Sprintf("; %s does, but OLM v0 never upgrades to it", dead[0])
		} else if len(dead) > 1 {
			msg += fmt.Sprintf("; %s do, but OLM v0 never upgrades to them", strings.Join(dead, ", "))
		}
		if len(path) > 0 {
			end = path[len(path)-1]
			msg = fmt.Sprintf("OLM v0 upgrades the users of %q through %s and no further: they never reach the channel head", e.Name, strings.Join(path, " -> "))
		}
		issues = append(issues, newIssue(Warning, "unreachable-from-head", ch.Loc, ch.Package.Name, ch.Name, e.Name,
			fmt.Sprintf("let the head %q, or an entry on its replaces chain that no entry skips, replace or skip %q, or cover its version with a skipRange", g.Head(), end),
			"%s", msg).ForOLM(OLMv0))
	}
	return issues
}

// downgradesOffered finds the entries whose users OLM offers a bundle of a lower version: mostly a
// skipRange with no upper bound (">2.6.1-final") on an older bundle, which covers every newer
// bundle. One issue per entry whose users are offered the downgrade, so that adding a newer bundle
// to the channel adds one issue and leaves the others' messages alone. When the downgrade is the
// offer OLM takes (the one nearest the head, as for a head that no entry names), its users are moved
// down, and, when the lower bundle's own first offer is the bundle they left, back up on the next
// resolve: an endless flip.
func downgradesOffered(ch *Channel, g *UpgradeGraph) Issues {
	var issues Issues
	for _, e := range ch.SortedEntries() {
		if !offersLowerVersion(ch, g, e) {
			continue // most entries: nothing to say, found without Successors' allocations
		}
		v := EntryVersion(e)
		if v == nil {
			continue
		}
		offers := g.Successors(e.Name, v)
		var lower []string
		var rangeFix, edgeFix string
		for _, to := range offers {
			low := ch.Entries[to]
			tv := EntryVersion(low)
			if to == e.Name || tv == nil || !tv.LT(*v) {
				continue
			}
			named := low.Replaces == e.Name
			for _, s := range low.Skips {
				named = named || s == e.Name
			}
			if named {
				lower = append(lower, fmt.Sprintf("%q (%s, replaces or skips it)", to, low.Bundle.VersionString))
				if edgeFix == "" {
					edgeFix = fmt.Sprintf("drop %q from the replaces/skips of the older %q", e.Name, to)
				}
				continue
			}
			lower = append(lower, fmt.Sprintf("%q (%s, skipRange %q)", to, low.Bundle.VersionString, low.SkipRange))
			if rangeFix == "" {
				rangeFix = fmt.Sprintf("give each skipRange named an upper bound no higher than its own bundle's version (e.g. %q for %q)",
					low.SkipRange+" <"+low.Bundle.VersionString, to)
			}
		}
		if len(lower) == 0 {
			continue
		}
		msg := fmt.Sprintf("OLM v0 offers the users of %q (%s) a downgrade to %s",
			e.Name, e.Bundle.VersionString, strings.Join(lower, ", "))
		if first := offers[0]; first != e.Name {
			if tv := EntryVersion(ch.Entries[first]); tv != nil && tv.LT(*v) {
				msg += fmt.Sprintf("; it is the offer nearest the head, so OLM v0 moves them down to %q", first)
				if g.Next(first, tv) == e.Name {
					msg += fmt.Sprintf(" and, on the next resolve, back up to %q: an endless flip", e.Name)
				}
			}
		}
		var fixes []string
		for _, f := range []string{rangeFix, edgeFix} {
			if f != "" {
				fixes = append(fixes, f)
			}
		}
		issues = append(issues, newIssue(Warning, "downgrade-offered", ch.Loc, ch.Package.Name, ch.Name, e.Name,
			strings.Join(fixes, "; "), "%s", msg).ForOLM(OLMv0))
	}
	return issues
}

// offersLowerVersion: some entry among what OLM offers the users of e (Successors, the entry itself
// left out) has a lower version than e. downgradesOffered asks it of every entry.
func offersLowerVersion(ch *Channel, g *UpgradeGraph, e *Entry) bool {
	if e == nil || e.Bundle == nil || e.Bundle.VersionString == "" {
		return false
	}
	v := e.Bundle.Version
	if e.Bundle.VersionErr != nil {
		var err error
		if v, err = semver.ParseTolerant(e.Bundle.VersionString); err != nil {
			return false
		}
	}
	lower := func(to string) bool {
		low := ch.Entries[to]
		if to == e.Name || low == nil || low.Bundle == nil || low.Bundle.VersionString == "" {
			return false
		}
		if low.Bundle.VersionErr == nil {
			return low.Bundle.Version.LT(v)
		}
		tv, err := semver.ParseTolerant(low.Bundle.VersionString)
		return err == nil && tv.LT(v)
	}
	for _, to := range g.replacing[e.Name] {
		if lower(to) {
			return true
		}
	}
	for _, to := range g.skipping[e.Name] {
		if lower(to) {
			return true
		}
	}
	for _, r := range g.ranges {
		if r.inRange(v) && lower(r.name) {
			return true
		}
	}
	return false
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
