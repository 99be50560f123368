package report

import (
	"fmt"
	"sort"
	"strings"
)

// Channels of up to smallChannel bundles are drawn whole; in larger ones, the bundles within
// contextHops upgrades of a change show where it sits.
const (
	smallChannel = 15
	contextHops  = 2
)

// maxEdgesPerNode bounds the edges drawn: skips and skipRange can join every pair of bundles, and
// Mermaid refuses diagrams past a few hundred edges.
const maxEdgesPerNode = 3

// trim cuts a large channel down to what changed, the heads and the bundles within contextHops
// upgrades of them, at most maxNodes; and to the edges between the bundles kept, changed edges and
// replaces first, at most maxEdgesPerNode per bundle.
func (p *chart) trim(maxNodes int) {
	keep := map[string]bool{}
	take := func(names []string) {
		for _, n := range names {
			if len(keep) < maxNodes {
				keep[n] = true
			}
		}
	}
	if len(p.nodes) <= min(smallChannel, maxNodes) {
		for _, n := range p.nodes {
			keep[n.name] = true
		}
	}
	var changed []string
	for i := len(p.nodes) - 1; i >= 0; i-- { // newest first
		if n := p.nodes[i]; n.added || n.removed || n.stranded || n.head || n.oldHead {
			changed = append(changed, n.name)
		}
	}
	for _, e := range p.edges {
		if e.added || e.removed {
			changed = append(changed, e.to, e.from)
		}
	}
	take(changed)
	for range contextHops {
		var near []string
		for _, e := range p.edges {
			if keep[e.from] && !keep[e.to] {
				near = append(near, e.to)
			}
			if keep[e.to] && !keep[e.from] {
				near = append(near, e.from)
			}
		}
		take(near)
	}

	nodes := p.nodes[:0]
	for _, n := range p.nodes {
		if keep[n.name] {
			nodes = append(nodes, n)
		}
	}
	p.hiddenNodes += len(p.nodes) - len(nodes)
	p.nodes = nodes
	rank := func(e chartEdge) int {
		switch {
		case e.added || e.removed:
			return 0
		case e.kind == "replaces":
			return 1
		}
		return 2
	}
	var inside []int
	for i, e := range p.edges {
		if keep[e.from] && keep[e.to] {
			inside = append(inside, i)
		}
	}
	sort.SliceStable(inside, func(i, j int) bool { return rank(p.edges[inside[i]]) < rank(p.edges[inside[j]]) })
	inside = inside[:min(len(inside), maxEdgesPerNode*max(len(nodes), 1))]
	sort.Ints(inside)
	edges := make([]chartEdge, 0, len(inside))
	for _, i := range inside {
		edges = append(edges, p.edges[i])
	}
	p.hiddenEdges += len(p.edges) - len(edges)
	p.edges = edges
}

// mermaid writes the chart as a Mermaid flowchart: added bundles and edges green, removed ones red
// and dashed, stranded bundles orange, heads with a thick border; every label in words.
func (p chart) mermaid(b *strings.Builder) {
	b.WriteString("```mermaid\nflowchart LR\n")
	ids := map[string]string{}
	classes := map[string][]string{}
	for i, n := range p.nodes {
		id := fmt.Sprintf("n%d", i)
		ids[n.name] = id
		var marks []string
		for _, m := range []struct {
			on          bool
			word, class string
		}{
			{n.head, "head", "head"}, {n.oldHead, "old head", ""}, {n.added, "added", "added"},
			{n.removed, "removed", "removed"}, {n.stranded, "stranded", "stranded"},
		} {
			if m.on {
				marks = append(marks, m.word)
				if m.class != "" {
					classes[m.class] = append(classes[m.class], id)
				}
			}
		}
		label := n.name
		if len(marks) > 0 {
			label += " (" + strings.Join(marks, ", ") + ")"
		}
		fmt.Fprintf(b, "  %s[\"%s\"]\n", id, mermaidText(label))
	}
	var green, red []string
	for i, e := range p.edges {
		arrow, label := "-->", e.kind
		switch {
		case e.added:
			arrow, label = "==>", e.kind+", added"
			green = append(green, fmt.Sprint(i))
		case e.removed:
			arrow, label = "-.->", e.kind+", removed"
			red = append(red, fmt.Sprint(i))
		}
		fmt.Fprintf(b, "  %s %s|\"%s\"| %s\n", ids[e.from], arrow, label, ids[e.to])
	}
	b.WriteString("  classDef added fill:#dafbe1,stroke:#1a7f37,color:#116329\n" +
		"  classDef removed fill:#ffebe9,stroke:#cf222e,stroke-dasharray:5 5,color:#82071e\n" +
		"  classDef stranded fill:#fff1e5,stroke:#bc4c00,color:#953800\n" +
		"  classDef head stroke-width:4px\n")
	for _, c := range []string{"added", "removed", "stranded", "head"} {
		if len(classes[c]) > 0 {
			fmt.Fprintf(b, "  class %s %s\n", strings.Join(classes[c], ","), c)
		}
	}
	if len(green) > 0 {
		fmt.Fprintf(b, "  linkStyle %s stroke:#1a7f37\n", strings.Join(green, ","))
	}
	if len(red) > 0 {
		fmt.Fprintf(b, "  linkStyle %s stroke:#cf222e\n", strings.Join(red, ","))
	}
	b.WriteString("```\n")
}

// mermaidText makes text safe inside a quoted Mermaid label, and inside a Markdown code fence:
// Mermaid's entity codes for the characters that end a label or start markup.
func mermaidText(s string) string {
	return strings.NewReplacer("#", "#35;", `"`, "#quot;", "<", "#lt;", ">", "#gt;", "`", "#96;",
		"&", "#38;", "\n", " ").Replace(s)
}
