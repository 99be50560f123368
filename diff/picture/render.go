package picture

import (
	"fmt"
	"io"
	"strings"

	"github.com/olmcat/olmcat/internal/textsafe"
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
	colourWarning    = "#bf8700"
)

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

// nodeLabel is the bundle name, its version when the name does not carry it, its marks and its
// skipRange.
func nodeLabel(n Node, br string) string {
	label := textsafe.Cut(n.Name, textsafe.MaxShown) // a name longer than a screen is shown cut, with its length
	if n.Version != "" && !strings.Contains(n.Name, n.Version) {
		label += br + n.Version
	}
	if notes := nodeNotes(n); len(notes) > 0 {
		label += br + "(" + strings.Join(notes, ", ") + ")"
	}
	if t := skipRangeText(n); t != "" {
		label += br + t
	}
	return label
}

func channelTitle(ch Channel) string {
	title := "channel " + textsafe.Cut(ch.Name, textsafe.MaxShown)
	if notes := channelNotes(ch); len(notes) > 0 {
		title += " (" + strings.Join(notes, ", ") + ")"
	}
	return title
}

// legendLabel is the text legend of the Mermaid and DOT writers, one line per key.
func legendLabel(br string, g *Graph) string {
	lines := []string{"legend (bundles in version order, newest at the top)"}
	if g.Deprecation != "" {
		lines = append(lines, "package "+g.Package+" is deprecated: "+g.Deprecation)
	}
	for _, k := range legendKeys(g) {
		lines = append(lines, legendText[k])
	}
	return strings.Join(lines, br)
}

// mermaidText escapes text inside a quoted Mermaid label (textsafe.MermaidLabel: no newline,
// quote, tag, %% directive or backtick); the <br/> line breaks of nodeLabel stay.
func mermaidText(s string) string {
	parts := strings.Split(s, "<br/>")
	for i, p := range parts {
		parts[i] = textsafe.MermaidLabel(p)
	}
	return strings.Join(parts, "<br/>")
}

// DOT writes a Graphviz digraph with one cluster per channel, drawn bottom to top like the Mermaid:
// bundles in version order (an invisible edge from each to the next version), edges pointing to
// upgrade targets, and a legend note.
func DOT(w io.Writer, g *Graph) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=BT;\n  node [shape=box, style=\"rounded\"];\n", dotString(g.Package))
	for ci, ch := range g.Channels {
		id := func(name string) string { return dotString(ch.Name + "/" + name) }
		fmt.Fprintf(&b, "  subgraph %s {\n    label=%s;\n", dotString(fmt.Sprintf("cluster_%d", ci)), dotString(channelTitle(ch)))
		for _, n := range ch.Nodes {
			attrs := []string{"label=" + dotString(nodeLabel(n, "\n"))}
			attrs = append(attrs, dotNodeStyle(n)...)
			fmt.Fprintf(&b, "    %s [%s];\n", id(n.Name), strings.Join(attrs, ", "))
		}
		for _, e := range ch.Edges {
			var attrs []string
			if e.Kind == EdgeSkips {
				attrs = append(attrs, "style=dotted")
			}
			if e.Kind == EdgeV1 {
				attrs = append(attrs, "style=dashed", "label=\"v1\"", "fontcolor="+dotString(colourV1))
			}
			switch {
			case e.Kind == EdgeV1 && e.Status == Added:
				attrs = append(attrs, "color="+dotString(colourV1), "penwidth=3")
			case e.Kind == EdgeV1 && e.Status == Removed:
				attrs = append(attrs, "color="+dotString(colourV1), "penwidth=1")
			case e.Kind == EdgeV1:
				attrs = append(attrs, "color="+dotString(colourV1))
			case e.Ignored && e.Status != Removed:
				attrs = append(attrs, "color="+dotString(colourIgnored))
			case e.Status == Added:
				attrs = append(attrs, "color="+dotString(colourAdded), "penwidth=2")
			case e.Status == Removed:
				attrs = append(attrs, "color="+dotString(colourRemoved), "penwidth=2")
			}
			if len(attrs) == 0 {
				fmt.Fprintf(&b, "    %s -> %s;\n", id(e.From), id(e.To))
				continue
			}
			fmt.Fprintf(&b, "    %s -> %s [%s];\n", id(e.From), id(e.To), strings.Join(attrs, ", "))
		}
		for i := 1; i < len(ch.Nodes); i++ { // one rank per version, in order
			fmt.Fprintf(&b, "    %s -> %s [style=invis];\n", id(ch.Nodes[i-1].Name), id(ch.Nodes[i].Name))
		}
		b.WriteString("  }\n")
	}
	fmt.Fprintf(&b, "  legend [shape=note, style=filled, fillcolor=\"#f6f8fa\", label=%s];\n", dotLeftLines(legendLabel("\n", g)))
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

// dotString quotes a DOT identifier or label; control characters but olmcat's line breaks are
// written as %q writes them.
func dotString(s string) string {
	return `"` + textsafe.DOTString(s) + `"`
}

// dotLeftLines quotes a label whose lines are left-aligned.
func dotLeftLines(s string) string {
	var b strings.Builder
	b.WriteString(`"`)
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(textsafe.DOTString(line) + `\l`)
	}
	return b.String() + `"`
}
