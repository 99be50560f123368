package picture

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/diff"
)

// Mermaid writes a flowchart with one subgraph per channel. It is drawn bottom to top so that, as
// in the SVG, bundles stand in version order with the newest at the top and arrows point to the
// upgrade target: Mermaid has no backward arrow, and a top-down chart would put the oldest first.
// An invisible link joins each bundle to the next version, so that every version has a row of its
// own even when no edge orders it. Edges carry no label: replaces solid, skips dotted; a skipRange
// is a line of its bundle's label. A legend node explains the styles.
func Mermaid(w io.Writer, g *Graph) error {
	var d mermaidDoc
	for ci, ch := range g.Channels {
		// Mermaid lays a subgraph out top-down unless told otherwise.
		fmt.Fprintf(&d.b, "  subgraph c%d[\"%s\"]\n    direction BT\n", ci, mermaidText(channelTitle(ch)))
		d.channel(ch, fmt.Sprintf("c%dn", ci), "    ")
		d.b.WriteString("  end\n")
	}
	fmt.Fprintf(&d.b, "  legend[\"%s\"]\n", mermaidText(legendLabel("<br/>", g)))
	d.classes = append(d.classes, [2]string{"legend", "legend"})
	_, err := io.WriteString(w, d.finish(true))
	return err
}

// MermaidChannel writes one channel as a Mermaid flowchart for a Markdown code block, cut to at
// most maxNodes bundles (0: no cap), and says how many bundles and edges it left out.
func MermaidChannel(w io.Writer, ch Channel, maxNodes int) (hiddenNodes, hiddenEdges int, err error) {
	ch, hiddenNodes, hiddenEdges = Cut(ch, maxNodes)
	var d mermaidDoc
	d.channel(ch, "n", "  ")
	_, err = io.WriteString(w, d.finish(false))
	return hiddenNodes, hiddenEdges, err
}

// MermaidLegend says in words how the Mermaid pictures draw what they draw.
const MermaidLegend = "Bundles in version order, newest at the top; arrows point to the upgrade target: solid replaces, " +
	"dotted skips; a skipRange is written on the bundle that declares it. Green: added; red: removed; orange: stranded; " +
	"thick blue border: the head; red or amber border: a bundle a breaking or warning finding names; light grey arrow: " +
	"an edge OLM v0 never takes (into a skipped bundle, or one off the replaces chain from the head)."

// MermaidLegendV1 adds to MermaidLegend what a picture with OLM v1's edges (EdgeV1) draws.
const MermaidLegendV1 = " Violet dashed arrow marked v1: where OLM v1 (a ClusterExtension of the channel) upgrades the users and OLM v0 does not " +
	"(thick: only in the new catalog; thin: only in the old)."

// HasV1Edges says whether a channel's picture draws an OLM v1 edge.
func HasV1Edges(ch Channel) bool {
	for _, e := range ch.Edges {
		if e.Kind == EdgeV1 {
			return true
		}
	}
	return false
}

type mermaidDoc struct {
	b       strings.Builder
	links   int
	styles  []string            // link styles, in the order first used
	styled  map[string][]string // link style -> indices of the links drawn so
	classes [][2]string         // node id, class
}

// channel writes the nodes and edges of a channel, node ids prefix0, prefix1, ... in version order.
func (d *mermaidDoc) channel(ch Channel, prefix, indent string) {
	index := make(map[string]int, len(ch.Nodes))
	for i, n := range ch.Nodes {
		index[n.Name] = i
	}
	id := func(name string) string { return fmt.Sprintf("%s%d", prefix, index[name]) }
	for _, n := range ch.Nodes {
		fmt.Fprintf(&d.b, "%s%s[\"%s\"]\n", indent, id(n.Name), mermaidText(nodeLabel(n, "<br/>")))
		for _, c := range nodeClasses(n) {
			d.classes = append(d.classes, [2]string{id(n.Name), c})
		}
	}
	for _, e := range ch.Edges {
		arrow := "-->"
		switch e.Kind {
		case EdgeSkips:
			arrow = "-.->"
		case EdgeV1:
			arrow = "-. v1 .->"
		}
		fmt.Fprintf(&d.b, "%s%s %s %s\n", indent, id(e.From), arrow, id(e.To))
		if style := mermaidLinkStyle(e); style != "" {
			if d.styled == nil {
				d.styled = map[string][]string{}
			}
			if d.styled[style] == nil {
				d.styles = append(d.styles, style)
			}
			d.styled[style] = append(d.styled[style], fmt.Sprint(d.links))
		}
		d.links++
	}
	for i := 1; i < len(ch.Nodes); i++ {
		fmt.Fprintf(&d.b, "%s%s ~~~ %s\n", indent, id(ch.Nodes[i-1].Name), id(ch.Nodes[i].Name))
		d.links++
	}
}

// finish puts the chart together: its header, the body, class definitions and link styles.
func (d *mermaidDoc) finish(legend bool) string {
	var out strings.Builder
	out.WriteString("flowchart BT\n")
	out.WriteString(d.b.String())
	byClass := map[string][]string{}
	for _, c := range d.classes {
		byClass[c[1]] = append(byClass[c[1]], c[0])
	}
	for _, def := range mermaidClassDefs {
		if ids := byClass[def[0]]; len(ids) > 0 {
			fmt.Fprintf(&out, "  classDef %s %s\n  class %s %s\n", def[0], def[1], strings.Join(ids, ","), def[0])
		}
	}
	if legend {
		out.WriteString("  classDef legend fill:#f6f8fa,stroke:#d0d7de,text-align:left\n  class legend legend\n")
	}
	for _, s := range d.styles {
		fmt.Fprintf(&out, "  linkStyle %s %s\n", strings.Join(d.styled[s], ","), s)
	}
	return out.String()
}

// mermaidClassDefs are the node classes, later ones winning where they set the same property.
var mermaidClassDefs = [][2]string{
	{"external", "stroke-dasharray:3,color:" + colourExternal},
	{"deprecated", "stroke:" + colourDeprecated + ",stroke-dasharray:2"},
	{"added", "fill:" + fillAdded + ",stroke:" + colourAdded},
	{"removed", "fill:" + fillRemoved + ",stroke:" + colourRemoved + ",stroke-dasharray:4"},
	{"head", "stroke:" + colourHead + ",stroke-width:3px"},
	{"warning", "stroke:" + colourWarning + ",stroke-width:3px"},
	{"breaking", "stroke:" + colourRemoved + ",stroke-width:3px"},
	{"stranded", "fill:" + fillStranded + ",stroke:" + colourStranded + ",stroke-width:3px"},
}

// nodeClasses are the Mermaid classes of a node.
func nodeClasses(n Node) []string {
	var out []string
	switch {
	case n.Status != Unchanged:
		out = append(out, string(n.Status))
	case n.External:
		out = append(out, "external")
	case n.Deprecation != "":
		out = append(out, "deprecated")
	}
	if n.Head {
		out = append(out, "head")
	}
	if w := n.Worst(); w == diff.Breaking || w == diff.Warning {
		out = append(out, string(w))
	}
	if n.Stranded {
		out = append(out, "stranded")
	}
	return out
}

// mermaidLinkStyle colours an edge by its comparison status, light grey when OLM never takes it.
func mermaidLinkStyle(e Edge) string {
	if e.Kind == EdgeV1 {
		switch e.Status {
		case Added:
			return "stroke:" + colourV1 + ",stroke-width:3px"
		case Removed:
			return "stroke:" + colourV1 + ",stroke-width:1px,stroke-dasharray:2 4"
		}
		return "stroke:" + colourV1
	}
	if e.Ignored && e.Status != Removed {
		return "stroke:" + colourIgnored
	}
	switch e.Status {
	case Added:
		return "stroke:" + colourAdded + ",stroke-width:2px"
	case Removed:
		return "stroke:" + colourRemoved + ",stroke-width:2px"
	}
	return ""
}

// Cut keeps at most maxNodes bundles of a channel (0: all): what a finding names, what changed, the
// heads and the ends of changed edges first, then their neighbours along the edges; and at most
// three edges a kept bundle, changed ones and replaces first. It says how many it left out.
func Cut(ch Channel, maxNodes int) (Channel, int, int) {
	if maxNodes <= 0 || len(ch.Nodes) <= maxNodes {
		return ch, 0, 0
	}
	keep := map[string]bool{}
	take := func(names ...string) {
		for _, n := range names {
			if len(keep) < maxNodes {
				keep[n] = true
			}
		}
	}
	for _, worth := range []func(Node) bool{
		func(n Node) bool { return n.Worst().Rank() >= diff.Warning.Rank() || n.Stranded },
		func(n Node) bool { return n.Status != Unchanged || n.Head || n.WasHead || n.SkipRangeChanged },
	} {
		for i := len(ch.Nodes) - 1; i >= 0; i-- { // newest first
			if worth(ch.Nodes[i]) {
				take(ch.Nodes[i].Name)
			}
		}
	}
	for _, e := range ch.Edges {
		if e.Status != Unchanged {
			take(e.To, e.From)
		}
	}
	for range 2 {
		var near []string
		for _, e := range ch.Edges {
			if keep[e.From] && !keep[e.To] {
				near = append(near, e.To)
			}
			if keep[e.To] && !keep[e.From] {
				near = append(near, e.From)
			}
		}
		take(near...)
	}
	out := ch
	out.Nodes, out.Edges = nil, nil
	for _, n := range ch.Nodes {
		if keep[n.Name] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	rank := func(e Edge) int {
		switch {
		case e.Status != Unchanged:
			return 0
		case e.Kind == EdgeReplaces:
			return 1
		}
		return 2
	}
	var inside []int
	for i, e := range ch.Edges {
		if keep[e.From] && keep[e.To] {
			inside = append(inside, i)
		}
	}
	sort.SliceStable(inside, func(i, j int) bool { return rank(ch.Edges[inside[i]]) < rank(ch.Edges[inside[j]]) })
	inside = inside[:min(len(inside), 3*max(len(out.Nodes), 1))]
	sort.Ints(inside)
	for _, i := range inside {
		out.Edges = append(out.Edges, ch.Edges[i])
	}
	return out, len(ch.Nodes) - len(out.Nodes), len(ch.Edges) - len(out.Edges)
}
