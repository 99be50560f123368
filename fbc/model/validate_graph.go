package model

import (
	"fmt"
	"strings"
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
			"upgrade graph has a cycle through replaces/skips: %s; OLM may offer an upgrade back to an older bundle", strings.Join(cycle, " -> "))
	}
	skippers := skippersOf(ch)
	issues = append(issues, skippedOnReplacesChain(ch, head, skippers)...)
	issues = append(issues, unreachableFromHead(ch, head, stranded, skippers)...)
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
// and that replace another entry themselves. OLM discards the upgrade edges of skipped bundles (and
// opm stops following replaces there), so that replaces edge has no effect: the bundles below it
// hang on skips alone.
func skippedOnReplacesChain(ch *Channel, head string, skippers map[string][]string) Issues {
	chain, _ := ch.ReplacesChain(head)
	var issues Issues
	for i := 1; i+1 < len(chain); i++ {
		name, below := chain[i], chain[i+1]
		by := skippers[name]
		if len(by) == 0 {
			continue
		}
		issues = append(issues, newIssue(Warning, "skipped-on-replaces-chain", ch.Loc, ch.Package.Name, ch.Name, name,
			fmt.Sprintf("drop %q from the skips of %s, or let the skipping entries replace or skip %q themselves", name, strings.Join(by, ", "), below),
			"bundle %q is on the replaces chain but skipped by %s: OLM ignores the upgrade edges of skipped bundles, so its replaces %q has no effect",
			name, strings.Join(by, ", "), below))
	}
	return issues
}

// unreachableFromHead finds entries from which no chain of replaces, skips or skipRange edges leads
// to the head, leaving out edges into skipped entries (OLM ignores those): users who installed them
// never get the newest bundle. Bundles already reported as stranded are left out.
func unreachableFromHead(ch *Channel, head string, stranded []string, skippers map[string][]string) Issues {
	edges := ch.UpgradeEdges()
	for from, tos := range edges {
		kept := tos[:0:0]
		for _, to := range tos {
			if len(skippers[to]) == 0 {
				kept = append(kept, to)
			}
		}
		edges[from] = kept
	}
	reach := Reachable(edges, head)
	reported := map[string]bool{}
	for _, s := range stranded {
		reported[s] = true
	}
	var stuck []string
	for _, e := range ch.SortedEntries() {
		if !reach[e.Name] && !reported[e.Name] {
			stuck = append(stuck, e.Name)
		}
	}
	if len(stuck) == 0 {
		return nil
	}
	return Issues{newIssue(Warning, "unreachable-from-head", ch.Loc, ch.Package.Name, ch.Name, "",
		fmt.Sprintf("let a bundle on the way to %q (not a skipped one) replace or skip them, or cover their versions with a skipRange", head),
		"no upgrade path leads to the channel head %q from: %s (edges into skipped bundles do not count: OLM drops skipped bundles from the graph)",
		head, strings.Join(stuck, ", "))}
}

// skippersOf maps each skipped name to the entries that skip it, sorted.
func skippersOf(ch *Channel) map[string][]string {
	skippers := map[string][]string{}
	for _, e := range ch.SortedEntries() {
		for _, s := range e.Skips {
			skippers[s] = append(skippers[s], e.Name)
		}
	}
	return skippers
}
