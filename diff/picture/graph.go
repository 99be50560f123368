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

// Status marks what a revision comparison says about a channel, node or edge; empty when unchanged
// or when the graph is not a comparison.
type Status string

const (
	Unchanged Status = ""
	Added     Status = "added"
	Removed   Status = "removed"
)

// Edge kinds, by the channel-entry field that makes the edge. A skipRange is no edge: it is drawn
// on the bundle that declares it, over the versions it covers (Node.SkipRange).
const (
	EdgeReplaces = "replaces"
	EdgeSkips    = "skips"
	// EdgeV1 is an upgrade OLM v1 makes where OLM v0 takes the users elsewhere or nowhere (the
	// report's V1Edges): drawn beside v0's edges only where the generations differ.
	EdgeV1 = "v1"
)

// Graph is the upgrade graph of some channels of one package.
type Graph struct {
	Package        string
	DefaultChannel string
	// OldDefaultChannel is set by BuildDiff when the old revision's default channel was another one.
	OldDefaultChannel string
	Deprecation       string // the package's deprecation message, "" when it is not deprecated
	Diff              bool   // the graph is the union of two revisions
	Channels          []Channel
}

// Channel is the graph of one channel: every entry, plus names that entries replace or skip without
// being entries themselves (External). Nodes are in ascending version order (see SortNodes).
type Channel struct {
	Name        string
	Default     bool
	WasDefault  bool // BuildDiff: the old revision's default channel, when the default changed
	Deprecation string
	Status      Status
	Nodes       []Node
	Edges       []Edge
}

// Node is one bundle of the channel.
type Node struct {
	Name     string
	Version  string
	Head     bool // in a comparison, the head of the new revision
	WasHead  bool // in a comparison, the head of the old revision and no longer the head
	External bool // named by a replaces or skips, but not an entry of the channel
	Status   Status
	// ChannelStatus says Status is the whole channel's (added or removed with all its bundles): the
	// colour shows it, the marks do not repeat it for each bundle.
	ChannelStatus bool
	Stranded      bool // users of this bundle could reach the head before and cannot now
	Deprecation   string
	// SkipRange is the range of versions whose users can upgrade straight to this bundle. In a
	// comparison, SkipRangeChanged says the old revision's entry had OldSkipRange instead.
	SkipRange, OldSkipRange string
	SkipRangeChanged        bool
	// Findings are the findings of a comparison that name this bundle, worst first.
	Findings []Mark
}

// Mark is a finding that names a bundle.
type Mark struct {
	Severity diff.Severity
	Kind     diff.Kind
	Rule     string // the validation rule of a problem-* finding
	Message  string
}

// Short names the finding in a few words: its validation rule, or its kind.
func (m Mark) Short() string {
	if m.Rule != "" {
		return string(m.Severity) + ": " + m.Rule
	}
	return string(m.Severity) + ": " + string(m.Kind)
}

// Worst is the severity of the bundle's worst finding, "" when none names it.
func (n Node) Worst() diff.Severity {
	if len(n.Findings) == 0 {
		return ""
	}
	return n.Findings[0].Severity
}

// Edge says users of From can upgrade to To, as the catalog declares it. Ignored says OLM never
// takes it: To is skipped by some entry, or off the replaces chain from the head, and OLM never
// upgrades to such an entry (model.UpgradeGraph.Order).
type Edge struct {
	From, To string
	Kind     string
	Status   Status
	Ignored  bool
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
	g := &Graph{Package: pkg, DefaultChannel: p.DefaultChannel, Deprecation: message(p.Deprecation)}
	for _, name := range names {
		ch := drawChannel(p.Channels[name])
		ch.Default = name == p.DefaultChannel
		g.Channels = append(g.Channels, ch)
	}
	return g, nil
}

// BuildDiff draws the union of a package's graphs in two revisions: channels, nodes and edges only
// one side has are Added or Removed, and the bundles the report finds stranded are Stranded. Heads,
// the default channel and deprecations are the new revision's (the old one's for what it alone has).
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
	var pkgFindings []diff.Finding
	for _, f := range r.Findings {
		if f.Package != pkg {
			continue
		}
		pkgFindings = append(pkgFindings, f)
		if f.Kind == diff.Stranded {
			stranded[f.Channel+"\x00"+f.Bundle] = true
		}
	}
	g := &Graph{Package: pkg, DefaultChannel: np.DefaultChannel, Deprecation: message(np.Deprecation), Diff: true}
	if len(np.Channels) == 0 {
		g.DefaultChannel, g.Deprecation = op.DefaultChannel, message(op.Deprecation)
	} else if op.DefaultChannel != "" && op.DefaultChannel != np.DefaultChannel {
		g.OldDefaultChannel = op.DefaultChannel
	}
	for _, name := range names {
		oc, nc := op.Channels[name], np.Channels[name]
		var oldCh, newCh Channel
		if oc != nil {
			oldCh = drawChannel(oc)
		}
		if nc != nil {
			newCh = drawChannel(nc)
		}
		merged := mergeChannels(name, oldCh, newCh)
		switch {
		case oc == nil:
			merged.Status, merged.Deprecation = Added, newCh.Deprecation
		case nc == nil:
			merged.Status, merged.Deprecation = Removed, oldCh.Deprecation
		default:
			merged.Deprecation = newCh.Deprecation
		}
		merged.Default = name == g.DefaultChannel
		merged.WasDefault = name == g.OldDefaultChannel
		for i := range merged.Nodes {
			n := &merged.Nodes[i]
			n.Stranded = stranded[name+"\x00"+n.Name]
			n.ChannelStatus = merged.Status != Unchanged && n.Status == merged.Status
		}
		addV1Edges(&merged, r.V1Edges, pkg)
		markFindings(&merged, pkgFindings)
		g.Channels = append(g.Channels, merged)
	}
	return g, nil
}

func findPackage(m *model.Model, pkg, where string) (*model.Package, error) {
	if p := m.Packages[pkg]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("no package %q%s (packages: %s)", pkg, where, strings.Join(Packages(m), ", "))
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
	names := sortedKeys(set)
	if channel == "" {
		return names, nil
	}
	if !set[channel] {
		return nil, fmt.Errorf("package %q has no channel %q (channels: %s)", p.Name, channel, strings.Join(names, ", "))
	}
	return []string{channel}, nil
}

func drawChannel(c *model.Channel) Channel {
	out := Channel{Name: c.Name, Deprecation: message(c.Deprecation)}
	heads := map[string]bool{}
	for _, h := range c.Heads() {
		heads[h] = true
	}
	external := map[string]bool{}
	// an edge into an entry OLM never upgrades to is ignored; with no head or several, OLM resolves
	// nothing in the channel, which the head findings say, and no edge is marked
	offered := map[string]bool{}
	g := model.NewUpgradeGraph(c)
	for _, name := range g.Order() {
		offered[name] = true
	}
	ignored := func(to string) bool { return len(g.Heads()) == 1 && !offered[to] }
	for _, e := range c.SortedEntries() {
		n := Node{Name: e.Name, Head: heads[e.Name], SkipRange: e.SkipRange}
		if e.Bundle != nil {
			n.Version, n.Deprecation = e.Bundle.VersionString, message(e.Bundle.Deprecation)
		}
		out.Nodes = append(out.Nodes, n)
		if e.Replaces != "" {
			out.Edges = append(out.Edges, Edge{From: e.Replaces, To: e.Name, Kind: EdgeReplaces, Ignored: ignored(e.Name)})
			external[e.Replaces] = true
		}
		for _, s := range sortedCopy(e.Skips) {
			out.Edges = append(out.Edges, Edge{From: s, To: e.Name, Kind: EdgeSkips, Ignored: ignored(e.Name)})
			external[s] = true
		}
	}
	for _, name := range sortedKeys(external) {
		if _, ok := c.Entries[name]; !ok {
			n := Node{Name: name, External: true}
			if c.Package != nil && c.Package.Bundles[name] != nil {
				n.Version = c.Package.Bundles[name].VersionString
			}
			out.Nodes = append(out.Nodes, n)
		}
	}
	SortNodes(out.Nodes)
	sortEdges(out.Nodes, out.Edges)
	return out
}

// mergeChannels is the union of two revisions of a channel. An entry only the new revision has is
// Added, one only the old revision has is Removed (even when an edge still names it) and no head.
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
			o.Status, o.Head, o.WasHead = Removed, false, o.Head
			out.Nodes = append(out.Nodes, o)
		case inNew:
			if inOld && !o.External && nn.SkipRange != o.SkipRange {
				nn.OldSkipRange, nn.SkipRangeChanged = o.SkipRange, true
			}
			nn.WasHead = inOld && o.Head && !nn.Head
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
	SortNodes(out.Nodes)
	sortEdges(out.Nodes, out.Edges)
	return out
}

// addV1Edges draws the report's OLM v1 edges of the channel: added where only the new catalog has
// them, removed where only the old one did.
func addV1Edges(ch *Channel, edges []diff.V1Edge, pkg string) {
	nodes := map[string]bool{}
	for _, n := range ch.Nodes {
		nodes[n.Name] = true
	}
	added := false
	for _, e := range edges {
		if e.Package != pkg || e.Channel != ch.Name || !nodes[e.From] || !nodes[e.To] {
			continue
		}
		status := Unchanged
		switch e.Side {
		case "new":
			status = Added
		case "old":
			status = Removed
		}
		ch.Edges = append(ch.Edges, Edge{From: e.From, To: e.To, Kind: EdgeV1, Status: status})
		added = true
	}
	if added {
		sortEdges(ch.Nodes, ch.Edges)
	}
}

// markFindings gives every node of the channel the findings that name it: by their bundle, or, for
// a finding of the channel or package as a whole, by its name in the message; such a message names
// the head as where upgrades lead, not as what is wrong, so it does not mark the head.
func markFindings(ch *Channel, fs []diff.Finding) {
	byBundle := map[string][]diff.Finding{}
	var whole []diff.Finding // of the channel or the package, naming bundles in their message only
	for _, f := range fs {
		switch {
		case f.Channel != "" && f.Channel != ch.Name:
		case f.Bundle != "":
			byBundle[f.Bundle] = append(byBundle[f.Bundle], f)
		default:
			whole = append(whole, f)
		}
	}
	for i := range ch.Nodes {
		n := &ch.Nodes[i]
		named := byBundle[n.Name]
		if !n.Head {
			for _, f := range whole {
				if names(f.Message, n.Name) {
					named = append(named, f)
				}
			}
		}
		for _, f := range named {
			m := Mark{Severity: f.Severity, Kind: f.Kind, Message: f.Message}
			if f.Category == diff.CategoryValidation {
				m.Rule = f.Field
			}
			n.Findings = append(n.Findings, m)
		}
		sort.SliceStable(n.Findings, func(a, b int) bool { return n.Findings[a].Severity.Rank() > n.Findings[b].Severity.Rank() })
	}
}

// names says whether text names the bundle: the name, not followed or preceded by more of a name.
func names(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !nameByte(text[start-1])) && (end == len(text) || !nameByte(text[end]) ||
			(text[end] == '.' && (end+1 == len(text) || !nameByte(text[end+1])))) {
			return true
		}
		i = start + 1
	}
}

func nameByte(c byte) bool {
	return c == '.' || c == '-' || c == '_' || c == '+' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
