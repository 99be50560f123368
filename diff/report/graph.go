package report

import (
	"slices"
	"sort"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// chart is the union of one channel's upgrade graph in the two catalogs, cut down to what a
// reviewer needs to see.
type chart struct {
	pkg, channel string
	nodes        []chartNode // in version order
	edges        []chartEdge
	breaking     bool // the channel has a breaking graph finding: drawn first
	hiddenNodes  int
	hiddenEdges  int
}

type chartNode struct {
	name                     string
	version                  *semver.Version
	added, removed, stranded bool
	head, oldHead            bool
}

// chartEdge says users of from can upgrade to to, through an entry's replaces, skips or skipRange.
type chartEdge struct {
	from, to, kind string
	added, removed bool
}

// graphKinds are the findings that mean a channel's graph may have changed.
var graphKinds = map[diff.Kind]bool{diff.EntryAdded: true, diff.EntryRemoved: true,
	diff.ReplacesChanged: true, diff.SkipsChanged: true, diff.SkipRangeChanged: true}

// charts draws every channel, present in both catalogs, whose upgrade graph changed: those with
// breaking graph findings first, then by package and channel.
func charts(r *diff.Report, oldSide, newSide *diff.Side) []chart {
	if oldSide == nil || newSide == nil {
		return nil
	}
	pkgs := map[string]bool{}
	stranded, breaking := map[[3]string]bool{}, map[[2]string]bool{}
	for _, f := range r.Findings {
		if f.Channel != "" && (f.Category == diff.CategoryGraph || graphKinds[f.Kind]) {
			pkgs[f.Package] = true
		}
		if f.Kind == diff.Stranded {
			stranded[[3]string{f.Package, f.Channel, f.Bundle}] = true
		}
		if f.Category == diff.CategoryGraph && f.Severity == diff.Breaking {
			breaking[[2]string{f.Package, f.Channel}] = true
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	om, nm := modelOf(oldSide.Catalog, pkgs), modelOf(newSide.Catalog, pkgs)
	var out []chart
	for _, np := range nm.SortedPackages() {
		op := om.Packages[np.Name]
		if op == nil {
			continue
		}
		for _, nc := range np.SortedChannels() {
			oc := op.Channels[nc.Name]
			if oc == nil {
				continue
			}
			p := union(oc, nc, func(b string) bool { return stranded[[3]string{np.Name, nc.Name, b}] })
			if p.changed() {
				p.pkg, p.breaking = np.Name, breaking[[2]string{np.Name, nc.Name}]
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].breaking && !out[j].breaking })
	return out
}

// modelOf builds the model of the named packages only.
func modelOf(cat *fbc.Catalog, pkgs map[string]bool) *model.Model {
	sub := &fbc.Catalog{}
	if cat != nil {
		for _, p := range cat.Packages {
			if pkgs[p.Name] {
				sub.Packages = append(sub.Packages, p)
			}
		}
		for _, c := range cat.Channels {
			if pkgs[c.Package] {
				sub.Channels = append(sub.Channels, c)
			}
		}
		for _, b := range cat.Bundles {
			if pkgs[b.Package] {
				sub.Bundles = append(sub.Bundles, b)
			}
		}
	}
	m, _ := model.FromCatalog(sub)
	return m
}

// union merges two revisions of a channel: entries only one side has are added or removed, and so
// are edges; names that entries replace or skip without being entries are nodes too.
func union(oc, nc *model.Channel, isStranded func(string) bool) chart {
	p := chart{channel: nc.Name}
	oldEdges, newEdges := edgesOf(oc), edgesOf(nc)
	coverRemoved(oc, nc, newEdges)
	newHeads, oldHeads := setOfList(nc.Heads()), setOfList(oc.Heads())
	names := map[string]*semver.Version{}
	for _, c := range []*model.Channel{oc, nc} {
		for _, e := range c.Entries {
			if v := model.EntryVersion(e); v != nil || names[e.Name] == nil {
				names[e.Name] = v
			}
		}
	}
	for _, es := range []map[chartEdge]bool{oldEdges, newEdges} {
		for e := range es {
			for _, n := range []string{e.from, e.to} {
				if _, ok := names[n]; !ok {
					names[n] = nil
				}
			}
		}
	}
	for name, v := range names {
		_, inOld := oc.Entries[name]
		_, inNew := nc.Entries[name]
		p.nodes = append(p.nodes, chartNode{name: name, version: v, added: inNew && !inOld, removed: inOld && !inNew,
			stranded: isStranded(name), head: newHeads[name], oldHead: oldHeads[name] && !newHeads[name]})
	}
	sort.Slice(p.nodes, func(i, j int) bool { return versionLess(p.nodes[i], p.nodes[j]) })
	for e := range newEdges {
		e.added = !oldEdges[e]
		p.edges = append(p.edges, e)
	}
	for e := range oldEdges {
		if !newEdges[e] {
			e.removed = true
			p.edges = append(p.edges, e)
		}
	}
	sort.Slice(p.edges, func(i, j int) bool {
		a, b := p.edges[i], p.edges[j]
		if a.from != b.from {
			return a.from < b.from
		}
		if a.to != b.to {
			return a.to < b.to
		}
		return a.kind < b.kind
	})
	return p
}

func (p chart) changed() bool {
	for _, n := range p.nodes {
		if n.added || n.removed || n.stranded || n.oldHead {
			return true
		}
	}
	for _, e := range p.edges {
		if e.added || e.removed {
			return true
		}
	}
	return false
}

// edgesOf lists a channel's upgrade edges by the field that makes them; skipRange edges are those
// of the resolver's reading (model.UpgradeGraph) that no replaces or skips names.
func edgesOf(c *model.Channel) map[chartEdge]bool {
	out := map[chartEdge]bool{}
	named := map[[2]string]bool{}
	for _, e := range c.Entries {
		if e.Replaces != "" {
			out[chartEdge{from: e.Replaces, to: e.Name, kind: "replaces"}] = true
			named[[2]string{e.Replaces, e.Name}] = true
		}
		for _, s := range e.Skips {
			out[chartEdge{from: s, to: e.Name, kind: "skips"}] = true
			named[[2]string{s, e.Name}] = true
		}
	}
	for from, tos := range model.NewUpgradeGraph(c).Edges() {
		for _, to := range tos {
			if !named[[2]string{from, to}] {
				out[chartEdge{from: from, to: to, kind: "skipRange"}] = true
			}
		}
	}
	return out
}

// coverRemoved adds the skipRange edges of the new channel from bundles it no longer has: their
// users keep running them, and upgrade to an entry OLM offers them (model.UpgradeGraph).
func coverRemoved(oc, nc *model.Channel, edges map[chartEdge]bool) {
	g := model.NewUpgradeGraph(nc)
	for name, old := range oc.Entries {
		if _, still := nc.Entries[name]; still {
			continue
		}
		for _, to := range g.Successors(name, model.EntryVersion(old)) {
			if nc.Entries[to].Replaces != name && !slices.Contains(nc.Entries[to].Skips, name) {
				edges[chartEdge{from: name, to: to, kind: "skipRange"}] = true
			}
		}
	}
}

// versionLess orders nodes by version, those without one first, then by name.
func versionLess(a, b chartNode) bool {
	switch {
	case a.version == nil && b.version != nil:
		return true
	case a.version != nil && b.version == nil:
		return false
	case a.version != nil && !a.version.EQ(*b.version):
		return a.version.LT(*b.version)
	}
	return a.name < b.name
}

func setOfList(list []string) map[string]bool {
	out := make(map[string]bool, len(list))
	for _, s := range list {
		out[s] = true
	}
	return out
}
