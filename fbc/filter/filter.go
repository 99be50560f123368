package filter

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// Error is a filter that cannot be applied as asked: a package or channel the catalog lacks, a
// default channel filtered away, a range that keeps nothing. Its message says what to set.
type Error struct {
	Package, Channel string
	Msg              string
}

func (e *Error) Error() string { return e.Msg }

// PackageReport is what the filter did to one package.
type PackageReport struct {
	Package string `json:"package"`
	// DefaultChannel is the kept default channel; DefaultChannelDecision says why it is that one.
	DefaultChannel         string          `json:"defaultChannel"`
	DefaultChannelDecision string          `json:"defaultChannelDecision"`
	Channels               []ChannelReport `json:"channels"`
	// RemovedChannels are channels of the package that are not kept, with why.
	RemovedChannels []RemovedChannel `json:"removedChannels,omitempty"`
	KeptBundles     int              `json:"keptBundles"`
	RemovedBundles  int              `json:"removedBundles"`
}

// RemovedChannel is a channel left out, and why.
type RemovedChannel struct {
	Channel string `json:"channel"`
	Reason  string `json:"reason"`
}

// ChannelReport is what the filter kept of one channel.
type ChannelReport struct {
	Channel string `json:"channel"`
	// InputHead is the channel's head in the input; Head the kept channel's head.
	InputHead string `json:"inputHead"`
	Head      string `json:"head"`
	// Selection is how the entries were chosen: "heads-only", "full" or the version range.
	Selection string `json:"selection"`
	Kept      int    `json:"kept"`
	// Added are the bundles outside the selection kept so that a kept bundle reaches the head.
	Added   []Addition `json:"addedToKeepPaths,omitempty"`
	Removed int        `json:"removed"`
	// CutOff are kept bundles from which OLM cannot upgrade to the kept head.
	CutOff []CutOff `json:"notReachingHead,omitempty"`
}

// Addition is a bundle kept beyond the selection, and for whom.
type Addition struct {
	Bundle string `json:"bundle"`
	For    string `json:"for"`
	Why    string `json:"why"`
}

// CutOff is a kept bundle whose users OLM cannot take to the kept channel head.
type CutOff struct {
	Bundle string `json:"bundle"`
	// InInput is true when the bundle could not reach its channel head in the input either.
	InInput bool   `json:"inInput"`
	Why     string `json:"why"`
}

// Package filters the blobs of one package (c holds that package only) by sel (nil: every
// channel, no range) and full. It returns the filtered blobs, in the input's order.
func filterPackage(name string, c *fbc.Catalog, sel *Package, full bool) (*fbc.Catalog, *PackageReport, error) {
	if full || !headsOnly(sel) {
		// Versions decide what a range keeps (and full keeps everything): decode every bundle.
		if err := decodeBundles(c); err != nil {
			return nil, nil, err
		}
	}
	// Heads-only needs no version: the channel entries give each channel's head (one head, or
	// an error naming them), and build decodes only the kept bundles.
	m, _ := model.FromCatalog(c)
	p := m.Packages[name]
	if p == nil {
		return nil, nil, &Error{Package: name, Msg: fmt.Sprintf("package %s has no olm.package blob in the catalog: the catalog is invalid; fix it or leave the package out", name)}
	}
	if sel == nil {
		sel = &Package{Name: name}
	}
	rep := &PackageReport{Package: name}
	var chosen []choice
	var selected map[string]bool // the bundles named (Package.Bundles)
	if len(sel.Bundles) > 0 {
		var err error
		if selected, chosen, err = bundleChannels(p, sel.Bundles); err != nil {
			return nil, nil, err
		}
		for i := range chosen {
			chosen[i].named = true
		}
	} else if len(sel.Channels) > 0 {
		for _, cs := range sel.Channels {
			ch := p.Channels[cs.Name]
			if ch == nil {
				return nil, nil, &Error{Package: name, Channel: cs.Name, Msg: fmt.Sprintf("package %s has no channel %s (its channels: %s): correct the channel's name", name, cs.Name, channelNames(p))}
			}
			rng := cs.Range
			if !rng.IsSet() {
				rng = sel.Range
			}
			chosen = append(chosen, choice{ch: ch, rng: rng, named: true})
		}
	} else {
		for _, ch := range p.SortedChannels() {
			chosen = append(chosen, choice{ch: ch, rng: sel.Range})
		}
	}
	if sel.DefaultChannel != "" && p.Channels[sel.DefaultChannel] == nil {
		return nil, nil, &Error{Package: name, Channel: sel.DefaultChannel, Msg: fmt.Sprintf("package %s has no channel %s to make its default channel (its channels: %s): correct defaultChannel", name, sel.DefaultChannel, channelNames(p))}
	}

	keptEntries := map[string]map[string]bool{} // channel -> kept entries
	var emptied []choice
	for _, c := range chosen {
		g := model.NewUpgradeGraph(c.ch)
		cr := ChannelReport{Channel: c.ch.Name, InputHead: g.Head()}
		if len(g.Heads()) != 1 {
			what := "no head (its replaces form a cycle)"
			if len(g.Heads()) > 1 {
				what = fmt.Sprintf("%d heads (%s)", len(g.Heads()), strings.Join(g.Heads(), ", "))
			}
			return nil, nil, &Error{Package: name, Channel: c.ch.Name, Msg: fmt.Sprintf("package %s channel %s has %s: opm rejects it and nothing in it can be chosen; fix the catalog or leave the channel out", name, c.ch.Name, what)}
		}
		var kept map[string]bool
		switch {
		case selected != nil:
			kept = map[string]bool{}
			var names []string
			for n := range c.ch.Entries {
				if selected[n] {
					kept[n] = true
					names = append(names, n)
				}
			}
			sort.Strings(names)
			cr.Selection = "bundles " + strings.Join(names, ", ")
		case full:
			cr.Selection = "full"
			kept = map[string]bool{}
			for n := range c.ch.Entries {
				kept[n] = true
			}
		case c.rng.IsSet():
			cr.Selection = c.rng.String()
			kept = keepRange(c.ch, g.Head(), c.rng)
		default:
			cr.Selection = "heads-only"
			kept = map[string]bool{g.Head(): true}
		}
		if len(kept) == 0 {
			emptied = append(emptied, c)
			continue
		}
		if selected != nil {
			cr.Added = joinHeads(c.ch, g.Head(), kept)
		}
		added, cut := keepPaths(c.ch, g, kept)
		cr.Added, cr.CutOff = append(cr.Added, added...), cut
		keptEntries[c.ch.Name] = kept
		cr.Head = model.NewUpgradeGraph(subChannel(c.ch, kept)).Head()
		cr.Kept = len(kept)
		cr.Removed = len(c.ch.Entries) - len(kept)
		rep.Channels = append(rep.Channels, cr)
	}

	// The default channel: the one asked for, else the package's own; it must be kept.
	keptNames := sortedKeys(keptEntries)
	switch {
	case sel.DefaultChannel != "" && keptEntries[sel.DefaultChannel] == nil:
		return nil, nil, &Error{Package: name, Channel: sel.DefaultChannel, Msg: fmt.Sprintf("package %s: defaultChannel %s is not among the kept channels (%s): set defaultChannel to one of them, or keep channel %s", name, sel.DefaultChannel, orNone(keptNames), sel.DefaultChannel)}
	case sel.DefaultChannel != "":
		rep.DefaultChannel = sel.DefaultChannel
		rep.DefaultChannelDecision = "set by defaultChannel"
		if sel.DefaultChannel == p.DefaultChannel {
			rep.DefaultChannelDecision = "kept (defaultChannel names the package's own)"
		}
	case keptEntries[p.DefaultChannel] != nil:
		rep.DefaultChannel = p.DefaultChannel
		rep.DefaultChannelDecision = "kept"
	default:
		why, orKeep := "is not among the selected channels", "keep channel "+p.DefaultChannel
		if selected != nil {
			why, orKeep = "holds none of the bundles selected", "select a bundle of channel "+p.DefaultChannel
		}
		for _, e := range emptied {
			if e.ch.Name == p.DefaultChannel {
				why = fmt.Sprintf("would keep no bundle with %s", e.rng)
			}
		}
		if len(keptNames) == 0 {
			return nil, nil, &Error{Package: name, Channel: p.DefaultChannel, Msg: fmt.Sprintf("package %s: the filter keeps no bundle of any selected channel (the default channel %s %s): widen the version range", name, p.DefaultChannel, why)}
		}
		return nil, nil, &Error{Package: name, Channel: p.DefaultChannel, Msg: fmt.Sprintf("package %s: its default channel %s %s: set defaultChannel to one of the kept channels (%s; with flags --default-channel %s=%s), or %s", name, p.DefaultChannel, why, strings.Join(keptNames, ", "), name, keptNames[0], orKeep)}
	}
	for _, e := range emptied {
		if e.named && e.rng.IsSet() {
			// A channel asked for by name must not vanish without a word (oc-mirror refuses too).
			return nil, nil, &Error{Package: name, Channel: e.ch.Name, Msg: fmt.Sprintf("package %s channel %s keeps no bundle with %s (its versions: %s): widen the range or leave the channel out", name, e.ch.Name, e.rng, versionSpan(e.ch))}
		}
		rep.RemovedChannels = append(rep.RemovedChannels, RemovedChannel{Channel: e.ch.Name, Reason: fmt.Sprintf("no bundle in %s (versions %s)", e.rng, versionSpan(e.ch))})
	}
	chosenNames := map[string]bool{}
	for _, c := range chosen {
		chosenNames[c.ch.Name] = true
	}
	for _, ch := range p.SortedChannels() {
		if !chosenNames[ch.Name] {
			rep.RemovedChannels = append(rep.RemovedChannels, RemovedChannel{Channel: ch.Name, Reason: "not selected"})
		}
	}

	out := build(c, name, rep.DefaultChannel, keptEntries)
	if err := decodeBundles(out); err != nil {
		return nil, nil, err
	}
	rep.KeptBundles = len(out.Bundles)
	rep.RemovedBundles = len(p.Bundles) - len(out.Bundles)
	return out, rep, nil
}

// choice is a channel chosen for the filter, with its range.
type choice struct {
	ch    *model.Channel
	rng   Range
	named bool // the channel was named in the configuration (or holds a bundle named there)
}

// bundleChannels finds the channels of p that hold the bundles named, refusing a name p lacks or
// that is in no channel.
func bundleChannels(p *model.Package, names []string) (map[string]bool, []choice, error) {
	selected := map[string]bool{}
	for _, n := range names {
		if p.Bundles[n] == nil {
			return nil, nil, &Error{Package: p.Name, Msg: fmt.Sprintf("package %s has no bundle %s%s: correct the bundle's name (bundles are named as the catalog's olm.bundle blobs name them)", p.Name, n, nearBundles(p, n))}
		}
		selected[n] = true
	}
	var chosen []choice
	in := map[string]bool{}
	for _, ch := range p.SortedChannels() {
		has := false
		for n := range selected {
			if ch.Entries[n] != nil {
				has, in[n] = true, true
			}
		}
		if has {
			chosen = append(chosen, choice{ch: ch})
		}
	}
	for _, n := range names {
		if !in[n] {
			return nil, nil, &Error{Package: p.Name, Msg: fmt.Sprintf("package %s: bundle %s is in no channel, so no catalog can hold it: the input is invalid there; select another bundle", p.Name, n)}
		}
	}
	return selected, chosen, nil
}

// nearBundles names up to five bundles of p whose names share the start of name (a typo in the
// version), or else the heads of p's channels.
func nearBundles(p *model.Package, name string) string {
	var near []string
	prefix := name
	if i := strings.LastIndex(prefix, "."); i > 0 {
		prefix = prefix[:i]
	}
	for n := range p.Bundles {
		if strings.HasPrefix(n, prefix) {
			near = append(near, n)
		}
	}
	if len(near) == 0 {
		for _, ch := range p.SortedChannels() {
			if h := model.NewUpgradeGraph(ch).Head(); h != "" && !slices.Contains(near, h) {
				near = append(near, h)
			}
		}
	}
	if len(near) == 0 {
		return ""
	}
	sort.Strings(near)
	if len(near) > 5 {
		near = near[:5]
	}
	return " (it has " + strings.Join(near, ", ") + ")"
}

// headsOnly reports whether the selection sets no version range and names no bundle (nil: every
// channel, heads-only).
func headsOnly(sel *Package) bool {
	if sel == nil {
		return true
	}
	if sel.Range.IsSet() || len(sel.Bundles) > 0 {
		return false
	}
	for _, cs := range sel.Channels {
		if cs.Range.IsSet() {
			return false
		}
	}
	return true
}

// decodeBundles decodes the deferred bundles of c: a blob of an FBC (fbc.Loader.DeferBundle) that
// does not decode is a load problem of the input;
// and those of an index.db (fbc.DeferredBundle) are built, the bundles of one package at once.
func decodeBundles(c *fbc.Catalog) error {
	var deferred []*fbc.Bundle
	for i := range c.Bundles {
		if b := &c.Bundles[i]; b.Deferred() {
			deferred = append(deferred, b)
		}
	}
	if err := fbc.DecodeBundles(deferred); err != nil {
		var lerr *fbc.LoadError
		if errors.As(err, &lerr) {
			return &fbc.LoadErrors{Errs: []*fbc.LoadError{lerr}}
		}
		return err
	}
	return nil
}

// keepRange keeps the entries of the channel in the range as catalog-filter does, without ever
// leaving the channel: from the head down the replaces chain, count for each entry the entries in
// range at or below it (itself, what it skips, what its replaces keeps), each counted once; the
// kept head is the lowest entry of the chain whose count is the head's, the kept chain ends
// above the first entry whose count is 0, and every entry it keeps keeps what it skips in range.
// catalog-filter follows replaces and skips out of the channel (to bundles of other channels);
// here a name that is no entry of the channel ends the chain or is not counted.
func keepRange(ch *model.Channel, head string, rng Range) map[string]bool {
	if kept := keepPinned(ch, rng); kept != nil {
		return kept
	}
	var chain []*model.Entry
	onChain := map[string]bool{}
	for e := ch.Entries[head]; e != nil && !onChain[e.Name]; e = ch.Entries[e.Replaces] {
		onChain[e.Name] = true
		chain = append(chain, e)
	}
	inRange := func(name string) bool {
		e := ch.Entries[name]
		return e != nil && e.Bundle != nil && e.Bundle.VersionErr == nil && rng.Contains(e.Bundle.Version)
	}
	counts := make([]int, len(chain))
	seen := map[string]bool{}
	for i := len(chain) - 1; i >= 0; i-- {
		n := 0
		if i+1 < len(chain) {
			n = counts[i+1]
		}
		e := chain[i]
		for _, name := range append([]string{e.Name}, e.Skips...) {
			if !seen[name] && inRange(name) {
				seen[name] = true
				n++
			}
		}
		counts[i] = n
	}
	kept := map[string]bool{}
	if len(chain) == 0 || counts[0] == 0 {
		return kept
	}
	top := 0
	for i := range chain {
		if counts[i] == counts[0] {
			top = i
		}
	}
	for i := top; i < len(chain) && counts[i] > 0; i++ {
		kept[chain[i].Name] = true
		for _, s := range chain[i].Skips {
			if inRange(s) {
				kept[s] = true
			}
		}
	}
	return kept
}

// keepPaths checks that every kept entry's users reach the kept channel's head as OLM's resolver
// takes them (model.UpgradeGraph). An entry cut off by the filter gets back the bundles of its
// path in the input, from it up to the first kept one (the fewest that restore OLM's own way);
// an entry already cut off in the input is only named.
func keepPaths(ch *model.Channel, in *model.UpgradeGraph, kept map[string]bool) ([]Addition, []CutOff) {
	var added []Addition
	var cut []CutOff
	done := map[string]bool{}
	for range len(ch.Entries) + 1 {
		g := model.NewUpgradeGraph(subChannel(ch, kept))
		changed := false
		for _, name := range sortedKeys(kept) {
			if done[name] {
				continue
			}
			v := model.EntryVersion(ch.Entries[name])
			if g.Destination(name, v).ReachesHead {
				continue
			}
			path, reaches := in.Path(name, v)
			if !reaches {
				done[name] = true
				d := in.Destination(name, v)
				cut = append(cut, CutOff{Bundle: name, InInput: true,
					Why: fmt.Sprintf("OLM takes its users to %s and no further", d.End)})
				continue
			}
			var add []string
			for _, step := range path {
				if kept[step] {
					break
				}
				add = append(add, step)
			}
			if len(add) == 0 {
				done[name] = true
				cut = append(cut, CutOff{Bundle: name, Why: fmt.Sprintf("OLM's path from it in the input (%s) leads out of the kept bundles", strings.Join(path, " -> "))})
				continue
			}
			for _, a := range add {
				kept[a] = true
				added = append(added, Addition{Bundle: a, For: name,
					Why: fmt.Sprintf("OLM upgrades %s through %s toward the head", name, strings.Join(add, " -> "))})
			}
			changed = true
			break
		}
		if !changed {
			break
		}
	}
	return added, cut
}

// joinHeads makes the kept entries of a channel one graph with one head by opm's rule (an entry
// no kept entry replaces or skips), as bundles named one by one may not be: from each extra head,
// the shortest way up the input's replaces and skips to a kept entry (or to the input's head) is
// kept too. It returns the entries added, and for whom.
func joinHeads(ch *model.Channel, inputHead string, kept map[string]bool) []Addition {
	upgradedBy := map[string][]string{} // entry -> the entries that replace or skip it
	for _, name := range sortedKeys(ch.Entries) {
		e := ch.Entries[name]
		for _, from := range append([]string{e.Replaces}, e.Skips...) {
			if ch.Entries[from] != nil && from != name {
				upgradedBy[from] = append(upgradedBy[from], name)
			}
		}
	}
	var added []Addition
	for range len(ch.Entries) {
		heads := model.NewUpgradeGraph(subChannel(ch, kept)).Heads()
		if len(heads) <= 1 {
			break
		}
		// A head below a kept entry joins it; only heads with nothing kept above them (branches
		// that meet higher up) are joined at the input's head.
		join := func(stop func(string) bool) bool {
			for _, h := range heads {
				path := pathUp(h, upgradedBy, stop)
				if len(path) == 0 {
					continue
				}
				for _, n := range path {
					if !kept[n] {
						kept[n] = true
						added = append(added, Addition{Bundle: n, For: h,
							Why: fmt.Sprintf("the channel needs one head: %s is upgraded through %s", h, strings.Join(path, " -> "))})
					}
				}
				return true
			}
			return false
		}
		if !join(func(n string) bool { return kept[n] }) && !join(func(n string) bool { return n == inputHead }) {
			break
		}
	}
	return added
}

// pathUp is the shortest way from start up the upgradedBy edges to an entry stop accepts (other
// than start), without start; nil when there is none.
func pathUp(start string, upgradedBy map[string][]string, stop func(string) bool) []string {
	prev := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n != start && stop(n) {
			var path []string
			for at := n; at != start; at = prev[at] {
				path = append([]string{at}, path...)
			}
			return path
		}
		for _, next := range upgradedBy[n] {
			if _, seen := prev[next]; !seen {
				prev[next] = n
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// subChannel is the channel with only the kept entries.
func subChannel(ch *model.Channel, kept map[string]bool) *model.Channel {
	sub := &model.Channel{Package: ch.Package, Name: ch.Name, Entries: make(map[string]*model.Entry, len(kept))}
	for n := range kept {
		if e := ch.Entries[n]; e != nil {
			sub.Entries[n] = e
		}
	}
	return sub
}

// build writes out the package's blobs that are kept, in the input's order: the package (with its
// default channel), the kept channels with their kept entries, the bundles of kept entries, the
// deprecations of what is kept, and the other blobs.
func build(c *fbc.Catalog, name, defaultChannel string, kept map[string]map[string]bool) *fbc.Catalog {
	out := &fbc.Catalog{}
	for _, p := range c.Packages {
		if p.Name == name {
			p.DefaultChannel = defaultChannel
			out.Packages = append(out.Packages, p)
		}
	}
	bundles := map[string]bool{}
	for _, ch := range c.Channels {
		k := kept[ch.Name]
		if ch.Package != name || k == nil {
			continue
		}
		var entries []fbc.ChannelEntry
		for _, e := range ch.Entries {
			if k[e.Name] {
				entries = append(entries, e)
				bundles[e.Name] = true
			}
		}
		ch.Entries = entries
		out.Channels = append(out.Channels, ch)
	}
	for _, b := range c.Bundles {
		if b.Package == name && bundles[b.Name] {
			out.Bundles = append(out.Bundles, b)
		}
	}
	for _, d := range c.Deprecations {
		if d.Package != name {
			continue
		}
		var entries []fbc.DeprecationEntry
		for _, e := range d.Entries {
			switch e.Reference.Schema {
			case fbc.SchemaBundle:
				if !bundles[e.Reference.Name] {
					continue
				}
			case fbc.SchemaChannel:
				if kept[e.Reference.Name] == nil {
					continue
				}
			}
			entries = append(entries, e)
		}
		if len(entries) > 0 {
			d.Entries = entries
			out.Deprecations = append(out.Deprecations, d)
		}
	}
	out.Others = append(out.Others, c.Others...)
	return out
}

func channelNames(p *model.Package) string {
	var names []string
	for _, ch := range p.SortedChannels() {
		names = append(names, ch.Name)
	}
	return orNone(names)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// versionSpan is the lowest and highest version of the channel's bundles, for messages.
func versionSpan(ch *model.Channel) string {
	var lo, hi *model.Bundle
	for _, e := range ch.Entries {
		b := e.Bundle
		if b == nil || b.VersionErr != nil {
			continue
		}
		if lo == nil || b.Version.LT(lo.Version) {
			lo = b
		}
		if hi == nil || b.Version.GT(hi.Version) {
			hi = b
		}
	}
	if lo == nil {
		return "none"
	}
	if lo == hi {
		return lo.VersionString
	}
	return lo.VersionString + " to " + hi.VersionString
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
