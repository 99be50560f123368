package resolve

import (
	"fmt"
	"sort"
	"strings"

	bsemver "github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
)

// entryV0 is one channel entry of a bundle the catalog has, as OLM v0's operator cache holds it.
type entryV0 struct {
	bundle    *fbc.Bundle
	channel   string
	isDefault bool
	entry     *fbc.ChannelEntry
}

// ResolveV0 answers what OLM v0 (the catalog operator's resolver) picks for a Subscription to the
// package in one channel (Channels holds at most one; none is every channel, the default channel
// first), with Installed as the installed CSV and nothing else installed. The rules are those of
// operator-lifecycle-manager's Resolver.getSubscriptionVariables and sortChannel: each channel is
// ordered along its replaces chain from the head (entries another entry skips are left out); with
// an installed bundle only entries that replace or skip it, or whose skipRange covers its version,
// are candidates, and with none the Subscription stays on it; the first candidate is the pick.
// Dependencies are not resolved: a pick that declares some is picked only if OLM v0 can satisfy
// them, which this does not check (Answer.Note says so). Version and Policy are OLM v1 fields and
// are refused.
func (r *Resolver) ResolveV0(q Query) Answer {
	if q.Version != "" || q.Policy != "" {
		return Answer{Error: "a Subscription has no version range or upgrade constraint policy (those are OLM v1 ClusterExtension fields)"}
	}
	if len(q.Channels) > 1 {
		return Answer{Error: "a Subscription names one channel"}
	}
	channel := ""
	if len(q.Channels) == 1 {
		channel = q.Channels[0]
	}
	p := r.packages[q.Package]
	var entries []entryV0
	if p != nil {
		byName := map[string]*fbc.Bundle{}
		for _, b := range p.bundles {
			if byName[b.Name] == nil {
				byName[b.Name] = b
			}
		}
		def := r.defaultChannel[q.Package]
		for _, ch := range p.channels {
			if channel != "" && ch.Name != channel {
				continue
			}
			for i := range ch.Entries {
				if b := byName[ch.Entries[i].Name]; b != nil {
					entries = append(entries, entryV0{bundle: b, channel: ch.Name, isDefault: ch.Name == def, entry: &ch.Entries[i]})
				}
			}
		}
	}
	sub := q.Package // the Subscription is taken to be named after its package
	switch {
	case p == nil || len(p.bundles) == 0:
		return Answer{Error: fmt.Sprintf("no operators found in package %s in the catalog referenced by subscription %s", q.Package, sub)}
	case len(entries) == 0:
		return Answer{Error: fmt.Sprintf("no operators found in channel %s of package %s in the catalog referenced by subscription %s", channel, q.Package, sub)}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].isDefault == entries[j].isDefault {
			return entries[i].channel < entries[j].channel
		}
		return entries[i].isDefault
	})
	var sorted []entryV0
	for start := 0; start < len(entries); {
		end := start
		for end < len(entries) && entries[end].channel == entries[start].channel {
			end++
		}
		chain, err := sortChannelV0(q.Package, entries[start:end])
		if err != nil {
			return Answer{Error: err.Error()}
		}
		sorted = append(sorted, chain...)
		start = end
	}

	var ans Answer
	var instV bsemver.Version
	if q.Installed != nil {
		v, err := bsemver.Parse(q.Installed.Version)
		if err != nil {
			return Answer{Error: fmt.Sprintf("installed version %q: %v", q.Installed.Version, err)}
		}
		instV = v
		ans.Successors = []string{}
	}
	var pick *entryV0
	for i := range sorted {
		e := &sorted[i]
		if q.Installed != nil && !replacesV0(e.entry, q.Installed.Name, instV) {
			continue
		}
		if q.Installed != nil && !containsString(ans.Successors, e.bundle.Name) {
			ans.Successors = append(ans.Successors, e.bundle.Name)
		}
		if pick == nil {
			pick = e
		}
	}
	if pick == nil { // nothing replaces the installed bundle: the Subscription stays on it
		ans.Bundle, ans.BundleVersion = q.Installed.Name, q.Installed.Version
		return ans
	}
	ans.Bundle = pick.bundle.Name
	if vr, err := r.version(pick.bundle); err == nil {
		ans.BundleVersion = vr.legacyString()
	}
	if err := noDependencies(pick.bundle); err != nil {
		ans.Note = "OLM v0 installs it only if it can also install its dependencies, which olmcat does not check: " + err.Error()
	}
	return ans
}

// replacesV0 is OLM v0's upgrade filter: the entry's skipRange covers the installed version, or it
// replaces or skips the installed bundle.
func replacesV0(e *fbc.ChannelEntry, installed string, v bsemver.Version) bool {
	if e.Replaces == installed || containsString(e.Skips, installed) {
		return true
	}
	if e.SkipRange == "" {
		return false
	}
	rng, err := bsemver.ParseRange(e.SkipRange)
	return err == nil && rng(v)
}

// sortChannelV0 orders one channel's entries from the head along replaces, leaving out entries
// another entry skips; a channel without one replacement chain is OLM v0's error.
func sortChannelV0(pkg string, entries []entryV0) ([]entryV0, error) {
	channel := entries[0].channel
	lookup := map[string]int{}
	for i, e := range entries {
		lookup[e.bundle.Name] = i
	}
	replacedBy := map[int]bool{}
	replaces := map[int]int{}
	skipped := map[string]bool{}
	for i, e := range entries {
		if e.entry.Replaces != "" {
			if r, ok := lookup[e.entry.Replaces]; ok {
				replacedBy[r] = true
				replaces[i] = r
			}
		}
		for _, s := range e.entry.Skips {
			if r, ok := lookup[s]; ok {
				replacedBy[r] = true
				skipped[s] = true
			}
		}
	}
	var heads []int
	for i := range entries {
		if !replacedBy[i] {
			heads = append(heads, i)
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", channel, pkg)
	}
	var chains [][]entryV0
	for _, h := range heads {
		var chain []entryV0
		visited := map[int]bool{}
		cur := h
		for {
			visited[cur] = true
			if !skipped[entries[cur].bundle.Name] {
				chain = append(chain, entries[cur])
			}
			next, ok := replaces[cur]
			if !ok {
				break
			}
			if visited[next] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", entries[h].bundle.Name, channel, pkg)
			}
			cur = next
		}
		chains = append(chains, chain)
	}
	if len(chains) > 1 {
		names := make([]string, len(chains))
		for i, c := range chains {
			switch len(c) {
			case 0:
				names[i] = "[]"
			case 1:
				names[i] = c[0].bundle.Name
			default:
				names[i] = fmt.Sprintf("%s...%s", c[0].bundle.Name, c[len(c)-1].bundle.Name)
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s", len(names), channel, pkg, strings.Join(names, ", "))
	}
	return chains[0], nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
