package picture

import (
	"fmt"
	"io"
	"strings"
)

// Formats accepted by Write.
const (
	FormatMermaid = "mermaid"
	FormatDOT     = "dot"
	FormatSVG     = "svg"
	FormatHTML    = "html"
)

// Write renders the graph as Mermaid, DOT, a standalone SVG or an HTML page around the SVG.
func Write(w io.Writer, g *Graph, format string) error {
	switch format {
	case FormatMermaid:
		return Mermaid(w, g)
	case FormatDOT:
		return DOT(w, g)
	case FormatSVG:
		return SVG(w, g)
	case FormatHTML:
		return HTML(w, g)
	}
	return fmt.Errorf("unknown graph format %q (use mermaid, dot, svg or html)", format)
}

// Colours shared by every renderer.
const (
	colourAdded      = "#2da44e"
	colourRemoved    = "#cf222e"
	colourStranded   = "#fb8500"
	colourHead       = "#0969da"
	colourDeprecated = "#8250df"
	colourExternal   = "#6e7781"
	fillAdded        = "#dafbe1"
	fillRemoved      = "#ffebe9"
	fillStranded     = "#fff1e0"
)

// Mermaid writes a flowchart with one subgraph per channel, bundles left to right in version order.
// Edges point from a bundle to the bundles its users can upgrade to: solid for replaces, dashed for
// skips, dotted for skipRange. A legend node explains the styles.
func Mermaid(w io.Writer, g *Graph) error {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	var linkStyles []string
	link := 0
	for ci, ch := range g.Channels {
		index := make(map[string]int, len(ch.Nodes))
		for i, n := range ch.Nodes {
			index[n.Name] = i
		}
		id := func(name string) string { return fmt.Sprintf("c%dn%d", ci, index[name]) }
		fmt.Fprintf(&b, "  subgraph c%d[\"%s\"]\n", ci, mermaidText(channelTitle(ch)))
		for _, n := range ch.Nodes {
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", id(n.Name), mermaidText(nodeLabel(n, "<br/>")))
		}
		for _, e := range ch.Edges {
			arrow := "-->"
			if e.Kind != EdgeReplaces {
				arrow = "-.->"
			}
			fmt.Fprintf(&b, "    %s %s|%s| %s\n", id(e.From), arrow, e.Kind, id(e.To))
			if style := mermaidLinkStyle(e); style != "" {
				linkStyles = append(linkStyles, fmt.Sprintf("  linkStyle %d %s", link, style))
			}
			link++
		}
		b.WriteString("  end\n")
		for _, n := range ch.Nodes {
			if class := nodeClass(n); class != "" {
				fmt.Fprintf(&b, "  class %s %s\n", id(n.Name), class)
			}
		}
	}
	fmt.Fprintf(&b, "  legend[\"%s\"]\n  class legend legend\n", mermaidText(legendLabel(g, "<br/>")))
	fmt.Fprintf(&b, "  classDef legend fill:#f6f8fa,stroke:#d0d7de,text-align:left\n")
	fmt.Fprintf(&b, "  classDef head stroke:%s,stroke-width:3px\n", colourHead)
	fmt.Fprintf(&b, "  classDef external stroke-dasharray:3,color:%s\n", colourExternal)
	fmt.Fprintf(&b, "  classDef deprecated stroke:%s,stroke-dasharray:2\n", colourDeprecated)
	fmt.Fprintf(&b, "  classDef added fill:%s,stroke:%s\n", fillAdded, colourAdded)
	fmt.Fprintf(&b, "  classDef removed fill:%s,stroke:%s,stroke-dasharray:4\n", fillRemoved, colourRemoved)
	fmt.Fprintf(&b, "  classDef stranded fill:%s,stroke:%s,stroke-width:3px\n", fillStranded, colourStranded)
	for _, s := range linkStyles {
		b.WriteString(s + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidLinkStyle draws the edge kind as a dash pattern and the comparison status as a colour.
func mermaidLinkStyle(e Edge) string {
	var parts []string
	switch e.Kind {
	case EdgeSkips:
		parts = append(parts, "stroke-dasharray:6 4")
	case EdgeSkipRange:
		parts = append(parts, "stroke-dasharray:2 3")
	}
	switch e.Status {
	case Added:
		parts = append(parts, "stroke:"+colourAdded, "stroke-width:2px")
	case Removed:
		parts = append(parts, "stroke:"+colourRemoved, "stroke-width:2px")
	}
	return strings.Join(parts, ",")
}

// nodeClass picks the one Mermaid class of a node, the most important mark first.
func nodeClass(n Node) string {
	switch {
	case n.Stranded:
		return "stranded"
	case n.Status != Unchanged:
		return string(n.Status)
	case n.Head:
		return "head"
	case n.Deprecation != "":
		return "deprecated"
	case n.External:
		return "external"
	}
	return ""
}

// nodeLabel is the bundle name, its version, and its marks.
func nodeLabel(n Node, br string) string {
	label := n.Name
	if n.Version != "" {
		label += br + n.Version
	}
	if notes := nodeNotes(n); len(notes) > 0 {
		label += br + "(" + strings.Join(notes, ", ") + ")"
	}
	return label
}

func channelTitle(ch Channel) string {
	title := "channel " + ch.Name
	if notes := channelNotes(ch); len(notes) > 0 {
		title += " (" + strings.Join(notes, ", ") + ")"
	}
	return title
}

// legendLabel is the text legend of the Mermaid and DOT writers, one line per key.
func legendLabel(g *Graph, br string) string {
	lines := []string{"legend (bundles in version order)"}
	if g.Deprecation != "" {
		lines = append(lines, "package "+g.Package+" is deprecated: "+g.Deprecation)
	}
	for _, k := range legendKeys(g) {
		lines = append(lines, legendText[k])
	}
	return strings.Join(lines, br)
}

// mermaidText escapes text inside a quoted Mermaid label; the <br/> line breaks of nodeLabel stay.
func mermaidText(s string) string {
	parts := strings.Split(s, "<br/>")
	for i, p := range parts {
		parts[i] = mermaidEscaper.Replace(p)
	}
	return strings.Join(parts, "<br/>")
}

var mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;")

// DOT writes a Graphviz digraph with one cluster per channel, edges pointing to upgrade targets, and
// a legend note.
func DOT(w io.Writer, g *Graph) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=LR;\n  node [shape=box, style=\"rounded\"];\n", dotString(g.Package))
	for ci, ch := range g.Channels {
		id := func(name string) string { return dotString(ch.Name + "/" + name) }
		fmt.Fprintf(&b, "  subgraph %s {\n    label=%s;\n", dotString(fmt.Sprintf("cluster_%d", ci)), dotString(channelTitle(ch)))
		for _, n := range ch.Nodes {
			attrs := []string{"label=" + dotString(nodeLabel(n, "\n"))}
			attrs = append(attrs, dotNodeStyle(n)...)
			fmt.Fprintf(&b, "    %s [%s];\n", id(n.Name), strings.Join(attrs, ", "))
		}
		for _, e := range ch.Edges {
			attrs := []string{"label=" + dotString(e.Kind)}
			switch e.Kind {
			case EdgeSkips:
				attrs = append(attrs, "style=dashed")
			case EdgeSkipRange:
				attrs = append(attrs, "style=dotted")
			}
			switch e.Status {
			case Added:
				attrs = append(attrs, "color="+dotString(colourAdded), "penwidth=2")
			case Removed:
				attrs = append(attrs, "color="+dotString(colourRemoved), "penwidth=2")
			}
			fmt.Fprintf(&b, "    %s -> %s [%s];\n", id(e.From), id(e.To), strings.Join(attrs, ", "))
		}
		b.WriteString("  }\n")
	}
	fmt.Fprintf(&b, "  legend [shape=note, style=filled, fillcolor=\"#f6f8fa\", label=%s];\n", dotLeftLines(legendLabel(g, "\n")))
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotNodeStyle(n Node) []string {
	var attrs []string
	switch {
	case n.Stranded:
		fill := fillStranded
		if n.Status == Removed {
			fill = fillRemoved
		}
		attrs = []string{`style="rounded,filled"`, "fillcolor=" + dotString(fill), "color=" + dotString(colourStranded), "penwidth=3"}
	case n.Status == Added:
		attrs = []string{`style="rounded,filled"`, "fillcolor=" + dotString(fillAdded), "color=" + dotString(colourAdded)}
	case n.Status == Removed:
		attrs = []string{`style="rounded,filled,dashed"`, "fillcolor=" + dotString(fillRemoved), "color=" + dotString(colourRemoved)}
	case n.Head:
		attrs = []string{"color=" + dotString(colourHead), "penwidth=3"}
	case n.External:
		attrs = []string{`style="rounded,dashed"`, "fontcolor=" + dotString(colourExternal)}
	case n.Deprecation != "":
		attrs = []string{"color=" + dotString(colourDeprecated)}
	}
	if n.Deprecation != "" {
		attrs = append(attrs, "tooltip="+dotString("deprecated: "+n.Deprecation))
	}
	return attrs
}

// dotString quotes a DOT identifier or label.
func dotString(s string) string {
	return `"` + dotEscaper.Replace(s) + `"`
}

// dotLeftLines quotes a label whose lines are left-aligned.
func dotLeftLines(s string) string {
	var b strings.Builder
	b.WriteString(`"`)
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(dotEscaper.Replace(line) + `\l`)
	}
	return b.String() + `"`
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
