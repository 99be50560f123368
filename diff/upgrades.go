package diff

import (
	"fmt"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/resolve"
	"github.com/olmcat/olmcat/internal/plural"
)

// Upgrade is where the users of one bundle of one channel can go, before and after the change. It is
// listed for every bundle of the old channel whose targets, head or path changed.
type Upgrade struct {
	Package string `json:"package"`
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Old     Reach  `json:"old"`
	New     Reach  `json:"new"`
}

// Reach is where upgrades lead from one bundle in one channel on one side.
type Reach struct {
	InChannel   bool     `json:"inChannel"` // the bundle is an entry of the channel on this side
	Targets     []string `json:"targets"`   // OLM's offers, nearest the head first (downgrades and the bundle itself included)
	Head        string   `json:"head"`      // the channel's head on this side ("" when it has none)
	ReachesHead bool     `json:"reachesHead"`
	Hops        int      `json:"hops"`          // fewest upgrades to the head, when reachable
	End         string   `json:"end,omitempty"` // where upgrading ends, when the head is out of reach
	// Downgrade is the offer OLM takes when it has a lower version than the bundle (a skipRange with
	// no upper bound on an older entry): OLM moves the users down to it ("" otherwise).
	Downgrade string `json:"downgrade,omitempty"`
	// V1 is where OLM v1 takes the same users (a ClusterExtension of the channel, CatalogProvided);
	// absent when the report speaks for OLM v0 only. The fields above are OLM v0's.
	V1 *V1Reach `json:"v1,omitempty"`
}

func (r Reach) equal(o Reach) bool {
	return r.InChannel == o.InChannel && strings.Join(r.Targets, "\x00") == strings.Join(o.Targets, "\x00") &&
		r.Head == o.Head && r.ReachesHead == o.ReachesHead && r.Hops == o.Hops && r.End == o.End &&
		r.Downgrade == o.Downgrade && (r.V1 == nil) == (o.V1 == nil) && (r.V1 == nil || *r.V1 == *o.V1)
}

// channelGraph is one side of one channel, read as OLM's resolver reads it (model.UpgradeGraph).
type channelGraph struct {
	channel *model.Channel
	graph   *model.UpgradeGraph
	heads   []string
	head    string // the head users end at; with several heads, the highest version
}

func newChannelGraph(c *model.Channel) *channelGraph {
	g := &channelGraph{channel: c, graph: model.NewUpgradeGraph(c)}
	g.heads, g.head = g.graph.Heads(), g.graph.Head()
	return g
}

// reach answers for a bundle with this name and (installed) version: OLM's offers, and the way it
// takes them (model.UpgradeGraph.Path).
func (g *channelGraph) reach(name string, version *semver.Version) Reach {
	_, in := g.channel.Entries[name]
	r := Reach{InChannel: in, Head: g.head, Targets: g.graph.Successors(name, version)}
	if r.Targets == nil {
		r.Targets = []string{}
	}
	if len(r.Targets) > 0 && r.Targets[0] != name && version != nil {
		if v := model.EntryVersion(g.channel.Entries[r.Targets[0]]); v != nil && v.LT(*version) {
			r.Downgrade = r.Targets[0]
		}
	}
	if g.head == "" {
		return r
	}
	d := g.graph.Destination(name, version)
	if d.ReachesHead {
		r.ReachesHead, r.Hops = true, d.Hops
		return r
	}
	r.End = d.End
	return r
}

// compareGraphs reports what the change does to the upgrades of every channel both sides have, and
// lists the bundles whose upgrades changed; with v1 (the package changed and OLM v1 is asked about),
// also the edges only OLM v1 takes in every channel of either side.
func compareGraphs(pkg string, op, np *pkgIndex, v1 *v1Package, gen gen) ([]Finding, []Upgrade, []V1Edge) {
	if op == nil || np == nil || op.model == nil || np.model == nil {
		return nil, nil, nil
	}
	var findings []Finding
	var upgrades []Upgrade
	var edges []V1Edge
	for _, oc := range op.model.SortedChannels() {
		nc := np.model.Channels[oc.Name]
		if nc == nil || sameGraph(oc, nc) && (v1 == nil || v1.settled(oc.Name)) {
			continue
		}
		f, u := compareChannelGraph(pkg, oc, nc, v1, gen)
		findings = append(findings, f...)
		upgrades = append(upgrades, u...)
	}
	if v1 != nil {
		for _, name := range unionKeys(op.model.Channels, np.model.Channels) {
			edges = append(edges, v1.v1Edges(op.model.Channels[name], np.model.Channels[name], name)...)
		}
	}
	return findings, upgrades, edges
}

// sameGraph is the fast path: same entries, same edges, same versions mean the same upgrades.
func sameGraph(oc, nc *model.Channel) bool {
	if len(oc.Entries) != len(nc.Entries) {
		return false
	}
	for name, o := range oc.Entries {
		n, ok := nc.Entries[name]
		if !ok || o.Replaces != n.Replaces || o.SkipRange != n.SkipRange ||
			strings.Join(o.Skips, "\x00") != strings.Join(n.Skips, "\x00") ||
			versionString(o) != versionString(n) {
			return false
		}
	}
	return true
}

func versionString(e *model.Entry) string {
	if e.Bundle == nil {
		return "\x00none"
	}
	return e.Bundle.VersionString
}

func compareChannelGraph(pkg string, oc, nc *model.Channel, v1 *v1Package, gen gen) ([]Finding, []Upgrade) {
	og, ng := newChannelGraph(oc), newChannelGraph(nc)
	mk := func(k Kind, bundle string) Finding {
		f := newFinding(k, pkg, oc.Name, bundle)
		f.OLM = ForOLMv0
		return f
	}
	var findings []Finding
	if gen.v0() {
		findings = append(headFindings(mk, og, ng), cycleFindings(mk, oc, nc)...)
	}

	var upgrades []Upgrade
	oldHeadInNew := Reach{}
	if og.head != "" {
		oldHeadInNew = ng.reach(og.head, model.EntryVersion(oc.Entries[og.head]))
	}
	onPath := stepsOnPaths(og)
	for _, e := range oc.SortedEntries() {
		version := model.EntryVersion(e)
		before, after := og.reach(e.Name, version), ng.reach(e.Name, version)
		if v1 != nil {
			if installed, ok := v1.old.version(e.Name); ok {
				inst := resolve.Installed{Name: e.Name, Version: installed}
				b, a := v1.old.reach(oc.Name, inst), v1.new.reach(oc.Name, inst)
				before.V1, after.V1 = &b, &a
			}
		}
		if !before.equal(after) {
			upgrades = append(upgrades, Upgrade{Package: pkg, Channel: oc.Name, Bundle: e.Name, Old: before, New: after})
		}
		findings = append(findings, generationFindings(gen, pathFindings(mk, e.Name, before, after, oldHeadInNew), mk, e.Name, before, after)...)
		if gen.v0() && !after.InChannel && onPath[e.Name] && e.Name != og.head {
			f := mk(RemovedFromPath, e.Name)
			f.Old = fmt.Sprintf("%s to %s", plural.Of(before.Hops, "hop"), before.Head)
			f.Message = fmt.Sprintf("removed bundle %q was a step on the way to the head for other bundles of the channel", e.Name)
			findings = append(findings, f)
		}
	}
	return findings, upgrades
}

// stepsOnPaths marks the entries that lie on some other entry's way to the head (the head
// included: callers leave it out, its removal is a head change).
func stepsOnPaths(g *channelGraph) map[string]bool {
	out := map[string]bool{}
	for name, e := range g.channel.Entries {
		version := model.EntryVersion(e)
		if g.graph.Destination(name, version).ReachesHead {
			if next := g.graph.Next(name, version); next != "" {
				out[next] = true
			}
		}
	}
	return out
}

func headFindings(mk func(Kind, string) Finding, og, ng *channelGraph) []Finding {
	var out []Finding
	if og.head != ng.head && og.head != "" && ng.head != "" {
		ov, nv := model.EntryVersion(og.channel.Entries[og.head]), model.EntryVersion(ng.channel.Entries[ng.head])
		kind := HeadChanged
		if ov != nil && nv != nil && nv.LT(*ov) {
			kind = HeadMovedBackwards
		}
		f := mk(kind, "")
		f.Old, f.New = og.head, ng.head
		f.Message = fmt.Sprintf("channel head changed from %s to %s", headLabel(og), headLabel(ng))
		out = append(out, f)
	}
	if len(ng.heads) > 1 && len(ng.heads) > len(og.heads) {
		f := mk(MultipleHeadsAppeared, "")
		f.Old, f.New = strings.Join(og.heads, ", "), strings.Join(ng.heads, ", ")
		f.Message = fmt.Sprintf("channel now has %d heads: %s", len(ng.heads), f.New)
		out = append(out, f)
	}
	return out
}

func headLabel(g *channelGraph) string {
	if e := g.channel.Entries[g.head]; e != nil && e.Bundle != nil && e.Bundle.VersionString != "" {
		return fmt.Sprintf("%s (%s)", g.head, e.Bundle.VersionString)
	}
	return g.head
}

func cycleFindings(mk func(Kind, string) Finding, oc, nc *model.Channel) []Finding {
	had := map[string]bool{}
	for _, c := range oc.Cycles() {
		had[strings.Join(c, " -> ")] = true
	}
	var out []Finding
	for _, c := range nc.Cycles() {
		path := strings.Join(c, " -> ")
		if had[path] {
			continue
		}
		f := mk(CycleIntroduced, c[0])
		f.New = path
		f.Message = "upgrade cycle introduced: " + path
		out = append(out, f)
	}
	return out
}

// generationFindings weighs OLM v0's path findings of one bundle (pathFindings) against where OLM
// v1 takes the same users (Reach.V1, when asked): a user stranded, or given a way to the top, under
// both generations is one finding for both; under one of them only, the finding says what the other
// does. With gen v1, findings of OLM v0 alone are left out.
func generationFindings(gen gen, v0 []Finding, mk func(Kind, string) Finding, name string, before, after Reach) []Finding {
	if before.V1 == nil || after.V1 == nil {
		if !gen.v0() {
			return nil
		}
		return v0
	}
	b, a := before.V1, after.V1
	v1Stranded := b.ReachesTop && !a.ReachesTop
	v1NewPath := !b.ReachesTop && a.ReachesTop
	var out []Finding
	seen := map[Kind]bool{}
	for _, f := range v0 {
		switch {
		case f.Kind == Stranded && v1Stranded, f.Kind == NewPath && v1NewPath:
			f.OLM = ForBothOLM
			f.Message += fmt.Sprintf(" (OLM v0; OLM v1 too: it %s)", v1Words(a))
			seen[f.Kind] = true
		case f.Kind == Stranded || f.Kind == NewPath:
			if !gen.v0() {
				continue
			}
			f.Message += fmt.Sprintf(" (OLM v0; OLM v1 %s)", v1Words(a))
		case !gen.v0():
			continue
		}
		out = append(out, f)
	}
	if v1Stranded && !seen[Stranded] {
		f := mk(Stranded, name)
		f.OLM = ForOLMv1
		f.Old, f.New = describeV1Reach(*b), describeV1Reach(*a)
		f.Message = fmt.Sprintf("under OLM v1, users of %q no longer upgrade to %s, what a fresh install of the channel gets: %s; OLM v0 %s",
			name, orNone(b.Top), v1Words(a), v0Words(name, after))
		out = append(out, f)
	}
	if v1NewPath && !seen[NewPath] {
		f := mk(NewPath, name)
		f.OLM = ForOLMv1
		f.Old, f.New = describeV1Reach(*b), describeV1Reach(*a)
		f.Message = fmt.Sprintf("under OLM v1, users of %q now upgrade to %s, what a fresh install of the channel gets; OLM v0 %s",
			name, a.Top, v0Words(name, after))
		out = append(out, f)
	}
	return out
}

// v1Words says where OLM v1 takes a user, after "OLM v1".
func v1Words(r *V1Reach) string {
	switch {
	case r.Error != "" && r.Hops == 0:
		return "refuses to upgrade them: " + r.Error
	case r.Hops == 0:
		return "keeps them where they are"
	case r.ReachesTop:
		return fmt.Sprintf("upgrades them to %s in %s", r.End, upgradeCount(r.Hops))
	}
	return fmt.Sprintf("upgrades them to %s, short of %s", r.End, orNone(r.Top))
}

// v0Words says where OLM v0 takes a user, after "OLM v0".
func v0Words(name string, r Reach) string {
	switch {
	case r.ReachesHead && r.Hops == 0:
		return "has them on the head " + r.Head
	case r.ReachesHead:
		return fmt.Sprintf("takes them to the head %s", r.Head)
	case r.End == "" || r.End == name:
		return "offers them no upgrade"
	}
	return fmt.Sprintf("takes them no further than %s (the head is %s)", r.End, orNone(r.Head))
}

// describeV1Reach is Reach's describeReach for OLM v1: "is the top T", "reaches T in N upgrades" or
// "upgrades end at B".
func describeV1Reach(r V1Reach) string {
	switch {
	case r.ReachesTop && r.Hops == 0:
		return "is the top " + r.Top
	case r.ReachesTop:
		return fmt.Sprintf("reaches %s in %s", r.Top, upgradeCount(r.Hops))
	}
	return "upgrades end at " + orNone(r.End)
}

// pathFindings judges one bundle's way to the head. A head that moved forward adds the old head's own
// way to the new one to what users need, which is not a longer path; when the old head cannot reach
// the new one, path lengths to two unrelated heads are not compared (its users are stranded).
func pathFindings(mk func(Kind, string) Finding, name string, before, after, oldHeadInNew Reach) []Finding {
	var f Finding
	switch {
	case before.ReachesHead && !after.ReachesHead:
		f = mk(Stranded, name)
		f.Old, f.New = describeReach(before), describeReach(after)
		f.Message = fmt.Sprintf("users of %q can no longer upgrade to the head %s; upgrades end at %s", name, orNone(after.Head), orNone(after.End))
	case !before.ReachesHead && after.ReachesHead:
		f = mk(NewPath, name)
		f.Old, f.New = describeReach(before), describeReach(after)
		f.Message = fmt.Sprintf("users of %q can now upgrade to the head %s", name, after.Head)
	case before.ReachesHead && after.ReachesHead && oldHeadInNew.ReachesHead:
		switch {
		case after.Hops > before.Hops+oldHeadInNew.Hops:
			f = mk(LongerPath, name)
		case after.Hops < before.Hops:
			f = mk(ShorterPath, name)
		default:
			return nil
		}
		f.Old = fmt.Sprintf("%s to %s", upgradeCount(before.Hops), before.Head)
		f.New = fmt.Sprintf("%s to %s", upgradeCount(after.Hops), after.Head)
		f.Message = fmt.Sprintf("users of %q need %s to reach the head (before: %d)", name, upgradeCount(after.Hops), before.Hops)
	default:
		return nil
	}
	return []Finding{f}
}

// describeReach says where a user ends up: "is the head H", "reaches H in N upgrades" or "upgrades
// end at B".
func describeReach(r Reach) string {
	switch {
	case r.ReachesHead && r.Hops == 0:
		return "is the head " + r.Head
	case r.ReachesHead:
		return fmt.Sprintf("reaches %s in %s", r.Head, upgradeCount(r.Hops))
	}
	return "upgrades end at " + orNone(r.End)
}

func upgradeCount(n int) string { return plural.Of(n, "upgrade") }

// switchChannels says, for the message of a removed channel, where its subscribers can switch to
// and still be offered updates: the new side's channels that hold the removed channel's head, and
// those whose upgrades (UpgradeGraph.Successors) offer that head one. "" when no channel does.
func switchChannels(removed *model.Channel, np *pkgIndex) string {
	if removed == nil || np == nil || np.model == nil {
		return ""
	}
	head := model.NewUpgradeGraph(removed).Head()
	if head == "" {
		return ""
	}
	version := model.EntryVersion(removed.Entries[head])
	var holding, offering []string
	for _, nc := range np.model.SortedChannels() {
		switch {
		case nc.Entries[head] != nil:
			holding = append(holding, nc.Name)
		case len(model.NewUpgradeGraph(nc).Successors(head, version)) > 0:
			offering = append(offering, nc.Name)
		}
	}
	var parts []string
	object := "its head " + head
	if len(holding) > 0 {
		parts = append(parts, fmt.Sprintf("%s its head %s", channelsVerb(holding, "holds", "hold"), head))
		object = "it"
	}
	if len(offering) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s an upgrade", channelsVerb(offering, "offers", "offer"), object))
	}
	return strings.Join(parts, ", ")
}

// channelsVerb names channels, quoted, followed by the verb agreeing with their number.
func channelsVerb(names []string, one, many string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return fmt.Sprintf("channel %s %s", quoted[0], one)
	}
	return fmt.Sprintf("channels %s %s", strings.Join(quoted, ", "), many)
}
