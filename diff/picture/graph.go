// Package picture draws the upgrade graphs of a package as Mermaid or Graphviz DOT, alone or as the
// union of two revisions with added and removed edges and stranded bundles marked.
package picture

import (
	"fmt"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc/model"
)

// Status marks what a revision comparison says about a node or an edge; empty when unchanged or
// when the graph is not a comparison.
type Status string

const (
	Unchanged Status = ""
	Added     Status = "added"
	Removed   Status = "removed"
	Stranded  Status = "stranded" // nodes only: users of this bundle lost their way to the head
)

// Edge kinds, by the channel-entry field that makes the edge.
const (
	EdgeReplaces  = "replaces"
	EdgeSkips     = "skips"
	EdgeSkipRange = "skipRange"
)

// Graph is the upgrade graph of some channels of one package.
type Graph struct {
	Package  string
	Channels []Channel
}

// Channel is the graph of one channel: every entry, plus names that entries replace or skip without
// being entries themselves (External).
type Channel struct {
	Name  string
	Nodes []Node
	Edges []Edge
}

// Node is one bundle of the channel.
type Node struct {
	Name     string
	Version  string
	Head     bool
	External bool // named by a replaces or skips, but not an entry of the channel
	Status   Status
}

// Edge says users of From can upgrade to To.
type Edge struct {
	From, To string
	Kind     string
	Status   Status
}

// Build draws one package of a catalog; channel "" means every channel.
func Build(m *model.Model, pkg, channel string) (*Graph, error) {
	p, err := findPackage(m, pkg, "")
	if err != nil {
		return nil, err
	}
	names, err := channelNames(p, nil, channel)
	if err != nil {
		return nil, err
	}
	g := &Graph{Package: pkg}
	for _, name := range names {
		g.Channels = append(g.Channels, drawChannel(p.Channels[name]))
	}
	return g, nil
}

// BuildDiff draws the union of a package's graphs in two revisions: nodes and edges only one side
// has are Added or Removed, and the bundles the report finds stranded are Stranded.
func BuildDiff(oldModel, newModel *model.Model, r *diff.Report, pkg, channel string) (*Graph, error) {
	np, err := findPackage(newModel, pkg, " in the new catalog")
	if err != nil {
		if op := oldModel.Packages[pkg]; op == nil {
			return nil, err
		}
		np = &model.Package{Name: pkg, Channels: map[string]*model.Channel{}}
	}
	op := oldModel.Packages[pkg]
	if op == nil {
		op = &model.Package{Name: pkg, Channels: map[string]*model.Channel{}}
	}
	names, err := channelNames(np, op, channel)
	if err != nil {
		return nil, err
	}
	stranded := map[string]bool{}
	for _, f := range r.Findings {
		if f.Kind == diff.Stranded && f.Package == pkg {
			stranded[f.Channel+"\x00"+f.Bundle] = true
		}
	}
	g := &Graph{Package: pkg}
	for _, name := range names {
		var oldCh, newCh Channel
		if c := op.Channels[name]; c != nil {
			oldCh = drawChannel(c)
		}
		if c := np.Channels[name]; c != nil {
			newCh = drawChannel(c)
		}
		merged := mergeChannels(name, oldCh, newCh)
		for i := range merged.Nodes {
			if stranded[name+"\x00"+merged.Nodes[i].Name] {
				merged.Nodes[i].Status = Stranded
			}
		}
		g.Channels = append(g.Channels, merged)
	}
	return g, nil
}

func findPackage(m *model.Model, pkg, where string) (*model.Package, error) {
	if p := m.Packages[pkg]; p != nil {
		return p, nil
	}
	var names []string
	for _, p := range m.SortedPackages() {
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("no package %q%s (packages: %s)", pkg, where, strings.Join(names, ", "))
}

// channelNames picks the channels to draw: the one asked for, or all of both revisions, sorted.
func channelNames(p, other *model.Package, channel string) ([]string, error) {
	set := map[string]bool{}
	for name := range p.Channels {
		set[name] = true
	}
	if other != nil {
		for name := range other.Channels {
			set[name] = true
		}
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	if channel == "" {
		return names, nil
	}
	if !set[channel] {
		return nil, fmt.Errorf("package %q has no channel %q (channels: %s)", p.Name, channel, strings.Join(names, ", "))
	}
	return []string{channel}, nil
}

func drawChannel(c *model.Channel) Channel {
	out := Channel{Name: c.Name}
	heads := map[string]bool{}
	for _, h := range c.Heads() {
		heads[h] = true
	}
	external := map[string]bool{}
	for _, e := range c.SortedEntries() {
		out.Nodes = append(out.Nodes, Node{Name: e.Name, Version: version(e), Head: heads[e.Name]})
		if e.Replaces != "" {
			out.Edges = append(out.Edges, Edge{From: e.Replaces, To: e.Name, Kind: EdgeReplaces})
			external[e.Replaces] = true
		}
		for _, s := range sortedCopy(e.Skips) {
			out.Edges = append(out.Edges, Edge{From: s, To: e.Name, Kind: EdgeSkips})
			external[s] = true
		}
	}
	named := map[string]bool{}
	for from, tos := range model.NewUpgradeGraph(c).Edges() {
		for _, to := range tos {
			named[from+"\x00"+to] = true
		}
	}
	for _, e := range out.Edges {
		delete(named, e.From+"\x00"+e.To)
	}
	for _, key := range sortedKeys(named) {
		from, to, _ := strings.Cut(key, "\x00")
		out.Edges = append(out.Edges, Edge{From: from, To: to, Kind: EdgeSkipRange})
	}
	for _, name := range sortedKeys(external) {
		if _, ok := c.Entries[name]; !ok {
			out.Nodes = append(out.Nodes, Node{Name: name, External: true})
		}
	}
	return out
}

func version(e *model.Entry) string {
	if e.Bundle == nil {
		return ""
	}
	return e.Bundle.VersionString
}

// mergeChannels is the union of two revisions of a channel. An entry only the new revision has is
// Added, one only the old revision has is Removed (even when an edge still names it).
func mergeChannels(name string, oldCh, newCh Channel) Channel {
	out := Channel{Name: name}
	oldNodes, newNodes := nodesByName(oldCh), nodesByName(newCh)
	for _, n := range unionNames(oldNodes, newNodes) {
		o, inOld := oldNodes[n]
		nn, inNew := newNodes[n]
		oldEntry, newEntry := inOld && !o.External, inNew && !nn.External
		switch {
		case newEntry && !oldEntry:
			nn.Status = Added
			out.Nodes = append(out.Nodes, nn)
		case oldEntry && !newEntry:
			o.Status = Removed
			out.Nodes = append(out.Nodes, o)
		case inNew:
			out.Nodes = append(out.Nodes, nn)
		default:
			out.Nodes = append(out.Nodes, o)
		}
	}
	edgeKey := func(e Edge) string { return e.From + "\x00" + e.To + "\x00" + e.Kind }
	oldEdges := map[string]bool{}
	for _, e := range oldCh.Edges {
		oldEdges[edgeKey(e)] = true
	}
	newEdges := map[string]bool{}
	for _, e := range newCh.Edges {
		newEdges[edgeKey(e)] = true
		if !oldEdges[edgeKey(e)] {
			e.Status = Added
		}
		out.Edges = append(out.Edges, e)
	}
	for _, e := range oldCh.Edges {
		if !newEdges[edgeKey(e)] {
			e.Status = Removed
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}

func nodesByName(c Channel) map[string]Node {
	out := make(map[string]Node, len(c.Nodes))
	for _, n := range c.Nodes {
		out[n.Name] = n
	}
	return out
}

func unionNames(a, b map[string]Node) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	return sortedKeys(set)
}

func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
