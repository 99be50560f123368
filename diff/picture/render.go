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
)

// Write renders the graph as Mermaid or DOT.
func Write(w io.Writer, g *Graph, format string) error {
	switch format {
	case FormatMermaid:
		return Mermaid(w, g)
	case FormatDOT:
		return DOT(w, g)
	}
	return fmt.Errorf("unknown graph format %q (use mermaid or dot)", format)
}

// Colours shared by both renderers.
const (
	colourAdded    = "#2da44e"
	colourRemoved  = "#cf222e"
	colourStranded = "#fb8500"
	fillAdded      = "#dafbe1"
	fillRemoved    = "#ffebe9"
	fillStranded   = "#fff1e0"
)

// Mermaid writes a flowchart with one subgraph per channel. Edges point from a bundle to the bundles
// its users can upgrade to: solid for replaces, dotted for skips and skipRange.
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
		fmt.Fprintf(&b, "  subgraph c%d[\"%s\"]\n", ci, mermaidText("channel "+ch.Name))
		for _, n := range ch.Nodes {
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", id(n.Name), mermaidText(nodeLabel(n, "<br/>")))
		}
		for _, e := range ch.Edges {
			arrow := "-->"
			if e.Kind != EdgeReplaces {
				arrow = "-.->"
			}
			fmt.Fprintf(&b, "    %s %s|%s| %s\n", id(e.From), arrow, e.Kind, id(e.To))
			switch e.Status {
			case Added:
				linkStyles = append(linkStyles, fmt.Sprintf("  linkStyle %d stroke:%s,stroke-width:2px", link, colourAdded))
			case Removed:
				linkStyles = append(linkStyles, fmt.Sprintf("  linkStyle %d stroke:%s,stroke-width:2px,stroke-dasharray:4", link, colourRemoved))
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
	fmt.Fprintf(&b, "  classDef head stroke-width:3px\n")
	fmt.Fprintf(&b, "  classDef external stroke-dasharray:3,color:#6e7781\n")
	fmt.Fprintf(&b, "  classDef added fill:%s,stroke:%s\n", fillAdded, colourAdded)
	fmt.Fprintf(&b, "  classDef removed fill:%s,stroke:%s,stroke-dasharray:4\n", fillRemoved, colourRemoved)
	fmt.Fprintf(&b, "  classDef stranded fill:%s,stroke:%s,stroke-width:3px\n", fillStranded, colourStranded)
	for _, s := range linkStyles {
		b.WriteString(s + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nodeClass picks the Mermaid class of a node: its diff status first, then head or external.
func nodeClass(n Node) string {
	switch {
	case n.Status != Unchanged:
		return string(n.Status)
	case n.Head:
		return "head"
	case n.External:
		return "external"
	}
	return ""
}

// nodeLabel is the bundle name, its version, and what the comparison says about it.
func nodeLabel(n Node, br string) string {
	label := n.Name
	if n.Version != "" {
		label += br + n.Version
	}
	var notes []string
	if n.Head {
		notes = append(notes, "head")
	}
	if n.External {
		notes = append(notes, "not in channel")
	}
	if n.Status != Unchanged {
		notes = append(notes, string(n.Status))
	}
	if len(notes) > 0 {
		label += br + "(" + strings.Join(notes, ", ") + ")"
	}
	return label
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

// DOT writes a Graphviz digraph with one cluster per channel, edges pointing to upgrade targets.
func DOT(w io.Writer, g *Graph) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=LR;\n  node [shape=box, style=\"rounded\"];\n", dotString(g.Package))
	for ci, ch := range g.Channels {
		id := func(name string) string { return dotString(ch.Name + "/" + name) }
		fmt.Fprintf(&b, "  subgraph %s {\n    label=%s;\n", dotString(fmt.Sprintf("cluster_%d", ci)), dotString("channel "+ch.Name))
		for _, n := range ch.Nodes {
			attrs := []string{"label=" + dotString(nodeLabel(n, "\n"))}
			attrs = append(attrs, dotNodeStyle(n)...)
			fmt.Fprintf(&b, "    %s [%s];\n", id(n.Name), strings.Join(attrs, ", "))
		}
		for _, e := range ch.Edges {
			attrs := []string{"label=" + dotString(e.Kind)}
			if e.Kind != EdgeReplaces {
				attrs = append(attrs, "style=dotted")
			}
			switch e.Status {
			case Added:
				attrs = append(attrs, "color="+dotString(colourAdded), "penwidth=2")
			case Removed:
				attrs = append(attrs, "color="+dotString(colourRemoved), "penwidth=2", "style=dashed")
			}
			fmt.Fprintf(&b, "    %s -> %s [%s];\n", id(e.From), id(e.To), strings.Join(attrs, ", "))
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotNodeStyle(n Node) []string {
	switch n.Status {
	case Added:
		return []string{`style="rounded,filled"`, "fillcolor=" + dotString(fillAdded), "color=" + dotString(colourAdded)}
	case Removed:
		return []string{`style="rounded,filled,dashed"`, "fillcolor=" + dotString(fillRemoved), "color=" + dotString(colourRemoved)}
	case Stranded:
		return []string{`style="rounded,filled"`, "fillcolor=" + dotString(fillStranded), "color=" + dotString(colourStranded), "penwidth=3"}
	}
	switch {
	case n.Head:
		return []string{"penwidth=3"}
	case n.External:
		return []string{`style="rounded,dashed"`, "fontcolor=\"#6e7781\""}
	}
	return nil
}

// dotString quotes a DOT identifier or label.
func dotString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
