package picture

import (
	"fmt"

	"io"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/textsafe"
)

const (
	margin      = 16
	fontMono    = "DejaVu Sans Mono, Menlo, Consolas, monospace"
	fontSans    = "system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"
	colourEdge  = "#57606a"
	colourText  = "#1f2328"
	colourMuted = "#656d76"
	// colourIgnored draws, in Mermaid and DOT, the edges OLM never takes (the SVG fades them)
	colourIgnored = "#d0d7de"
	// colourV1 draws OLM v1's edges where OLM v0 takes another way (EdgeV1)
	colourV1   = "#8250df"
	colourNode = "#8c959f"
	colourDflt = "#1b7c83"
)

// block is a part of a picture drawn at the origin; place puts it somewhere.
type block struct {
	body          string
	width, height int
}

func (b block) place(x, y int) string {
	return fmt.Sprintf("<g transform=\"translate(%d,%d)\">%s</g>\n", x, y, b.body)
}

// SVG writes the whole graph as a standalone SVG document: the package, a legend and every channel.
func SVG(w io.Writer, g *Graph) error {
	blocks := []block{packageTitle(g), legendBlock(g)}
	for _, ch := range g.Channels {
		blocks = append(blocks, channelBlock(ch, g.Diff))
	}
	width, height := 0, margin
	var body strings.Builder
	for _, b := range blocks {
		body.WriteString(b.place(margin, height))
		width = max(width, b.width)
		height += b.height + 20
	}
	width += 2 * margin
	_, err := fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\">\n"+
		"<title>%s</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n%s</svg>\n",
		width, height, width, height, fontSans, esc("upgrade graph of "+g.Package), body.String())
	return err
}

// ChannelSVG writes the graph of one channel of g as an inline SVG element for an HTML page.
func ChannelSVG(w io.Writer, g *Graph, channel int) error {
	return inline(w, channelBlock(g.Channels[channel], g.Diff), "upgrade graph of channel "+g.Channels[channel].Name)
}

func inline(w io.Writer, b block, title string) error {
	_, err := fmt.Fprintf(w, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\" role=\"img\" aria-label=\"%s\">\n%s</svg>\n",
		b.width, b.height, b.width, b.height, fontSans, esc(title), b.body)
	return err
}

func packageTitle(g *Graph) block {
	var b strings.Builder
	title := "package " + g.Package
	fmt.Fprintf(&b, "<text x=\"0\" y=\"18\" font-size=\"18\" font-weight=\"bold\" fill=\"%s\">%s</text>\n", colourText, esc(title))
	x := textWidth(title, 10.5) + 10
	if g.Deprecation != "" {
		b.WriteString(tag(x, 6, "deprecated", colourDeprecated, "#ffffff"))
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"17\" font-size=\"12\" fill=\"%s\">%s</text>\n", x+tagWidth("deprecated")+6, colourMuted, esc(oneLine(g.Deprecation)))
		x += tagWidth("deprecated") + 6 + textWidth(oneLine(g.Deprecation), 6.6)
	}
	return block{b.String(), x, 26}
}

func channelBlock(ch Channel, comparison bool) block {
	l := layoutChannel(ch, comparison)
	var b strings.Builder
	title := "channel " + ch.Name
	fmt.Fprintf(&b, "<text x=\"0\" y=\"16\" font-size=\"15\" font-weight=\"bold\" fill=\"%s\">%s</text>\n", colourText, esc(title))
	x := textWidth(title, 9) + 10
	for _, n := range channelNotes(ch) {
		b.WriteString(tag(x, 5, n, noteColour(n), "#ffffff"))
		x += tagWidth(n) + 4
	}
	width, top := x, 26
	notes := l.notes
	if ch.Deprecation != "" {
		notes = append([]string{"deprecated: " + oneLine(ch.Deprecation)}, notes...)
	}
	if len(l.rows) == 0 {
		notes = append(notes, "no bundles")
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "<text x=\"0\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n", top+10, colourMuted, esc(n))
		width = max(width, textWidth(n, 6.6))
		top += 16
	}
	xl := 0
	if l.leftLanes > 0 {
		xl = laneStart + (l.leftLanes-1)*laneGap + 4
	}
	xr := xl + l.nodeW
	right := xr
	if l.rightLanes > 0 {
		right += laneStart + (l.rightLanes-1)*laneGap + 4
	}
	bandX := right + bandStart
	textX := right + 12
	if l.bandLanes > 0 {
		textX = bandX + (l.bandLanes-1)*bandGap + 14
	}
	right = textX
	fmt.Fprintf(&b, "<g transform=\"translate(0,%d)\">\n", top+4)
	for i, r := range l.rows {
		y := l.rowY(i)
		if r.node == nil {
			fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" font-style=\"italic\" fill=\"%s\">%s</text>\n", xl+nodePad, y+4, colourMuted, esc(r.gap))
			width = max(width, xl+nodePad+textWidth(r.gap, 6.6))
			continue
		}
		b.WriteString(nodeSVG(*r.node, xl, y-nodeH/2, l.nodeW, "node"))
		svg, w := rowNotesSVG(*r.node, textX, y)
		b.WriteString(svg)
		right = max(right, textX+w)
	}
	b.WriteString(busesSVG(l, xl, xr))
	b.WriteString(bandsSVG(l, xr, bandX))
	b.WriteString("</g>\n")
	return block{b.String(), max(width, right), top + 4 + len(l.rows)*rowH}
}

// rowNotesSVG says in words, right of the lanes, what a row's bundle declares and what is found
// about it: its skipRange and its warning and breaking findings (info ones are in its tooltip).
func rowNotesSVG(n Node, x, y int) (string, int) {
	type note struct{ text, colour string }
	var notes []note
	if t := skipRangeText(n); t != "" {
		colour := colourText
		if n.SkipRangeChanged || n.Status != Unchanged {
			colour = edgeColour(bandStatus(n))
		}
		notes = append(notes, note{t, colour})
	}
	seen := map[string]bool{}
	for _, f := range n.Findings {
		t := f.Short()
		if f.Severity.Rank() >= diff.Warning.Rank() && !seen[t] {
			seen[t] = true
			notes = append(notes, note{t, severityColour(f.Severity)})
		}
	}
	var b strings.Builder
	w := 0
	for i, nt := range notes {
		if i > 0 {
			w += 14
		}
		weight := ""
		if !strings.HasPrefix(nt.text, "skipRange") {
			weight = " font-weight=\"bold\""
		}
		fmt.Fprintf(&b, "<text class=\"row-note\" x=\"%d\" y=\"%d\" font-family=\"%s\" font-size=\"11\" fill=\"%s\"%s>%s</text>", x+w, y+4, fontMono, nt.colour, weight, esc(nt.text))
		w += textWidth(nt.text, 6.7)
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String(), w
}

func bandStatus(n Node) Status {
	if n.Status == Unchanged && n.SkipRangeChanged {
		return Added
	}
	return n.Status
}

// severityColour is the ring and text colour of a finding's severity.
func severityColour(s diff.Severity) string {
	switch s {
	case diff.Breaking:
		return colourRemoved
	case diff.Warning:
		return colourWarning
	}
	return colourHead
}

// nodeSVG draws a bundle; class is "node", or "sample" in a legend, which needs no tooltip.
func nodeSVG(n Node, x, y, w int, class string) string {
	fill, stroke, sw, dash, text := "#ffffff", colourNode, "1", "", colourText
	switch {
	case n.Stranded:
		fill, stroke, sw = fillStranded, colourStranded, "3"
	case n.Status == Removed:
		fill, stroke, sw, dash = fillRemoved, colourRemoved, "1.5", "5 3"
	case n.Status == Added:
		fill, stroke, sw = fillAdded, colourAdded, "1.5"
	case n.Head:
		stroke, sw = colourHead, "2.5"
	case n.Deprecation != "":
		fill, stroke, sw = "#fbf7ff", colourDeprecated, "1.5"
	case n.External:
		fill, dash, text = "#f6f8fa", "4 3", colourMuted
	}
	var b strings.Builder
	name := textsafe.Cut(n.Name, textsafe.MaxShown) // a name longer than a screen is shown cut, with its length
	tip := name
	if n.Version != "" {
		tip += " " + n.Version
	}
	if notes := nodeNotes(n); len(notes) > 0 {
		tip += " (" + strings.Join(notes, ", ") + ")"
	}
	if t := skipRangeText(n); t != "" {
		tip += "\n" + t
	}
	if n.Deprecation != "" {
		tip += "\ndeprecated: " + n.Deprecation
	}
	for _, f := range n.Findings {
		msg := f.Message
		if name != n.Name {
			msg = strings.ReplaceAll(msg, n.Name, name)
		}
		tip += "\n" + string(f.Severity) + " " + string(f.Kind) + ": " + msg
	}
	if n.Stranded {
		class += " stranded"
	}
	if worst := n.Worst(); worst != "" {
		class += " finding-" + string(worst)
	}
	fmt.Fprintf(&b, "<g class=\"%s\">", class)
	if !strings.HasPrefix(class, "sample") {
		fmt.Fprintf(&b, "<title>%s</title>", escLines(tip))
	}
	if n.Stranded { // a halo, so that the bundle stands out in a long channel
		fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"8\" fill=\"%s\" fill-opacity=\"0.35\"/>", x-5, y-3, w+10, nodeH+6, colourStranded)
	}
	if worst := n.Worst(); worst == diff.Breaking || worst == diff.Warning { // a ring in the colour of the worst finding
		fmt.Fprintf(&b, "<rect class=\"ring\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"7\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"/>", x-3, y-3, w+6, nodeH+6, severityColour(worst))
	}
	fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"%s/>",
		x, y, w, nodeH, fill, stroke, sw, attr("stroke-dasharray", dash))
	if n.Worst() == diff.Info { // a dot on the corner: only info findings name the bundle
		fmt.Fprintf(&b, "<circle class=\"info-mark\" cx=\"%d\" cy=\"%d\" r=\"3.5\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1\"/>", x+1, y+1, colourHead)
	}
	deco := ""
	if n.Status == Removed {
		deco = "line-through"
	}
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" font-family=\"%s\" font-size=\"12\" fill=\"%s\"%s>%s</text>",
		x+nodePad, y+nodeH/2+4, fontMono, text, attr("text-decoration", deco), esc(label(n)))
	tx := x + w - nodePad/2
	notes := nodeNotes(n)
	for i := len(notes) - 1; i >= 0; i-- {
		tx -= tagWidth(notes[i])
		fg := "#ffffff"
		if notes[i] == "stranded" {
			fg = colourText
		}
		b.WriteString(tag(tx, y+(nodeH-tagH)/2, notes[i], noteColour(notes[i]), fg))
		tx -= 4
	}
	b.WriteString("</g>\n")
	return b.String()
}

// tag is a small rounded label with a coloured background.
func tag(x, y int, text, bg, fg string) string {
	return fmt.Sprintf("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"7\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-family=\"%s\" font-size=\"10\" font-weight=\"bold\" fill=\"%s\">%s</text>",
		x, y, tagWidth(text), tagH, bg, x+5, y+tagH-4, fontMono, fg, esc(text))
}

func noteColour(note string) string {
	switch note {
	case "head":
		return colourHead
	case "added":
		return colourAdded
	case "removed":
		return colourRemoved
	case "stranded":
		return colourStranded
	case "deprecated":
		return colourDeprecated
	case "default":
		return colourDflt
	}
	return colourExternal
}

func attr(name, value string) string {
	if value == "" {
		return ""
	}
	return fmt.Sprintf(" %s=\"%s\"", name, value)
}

// esc makes catalog text safe in SVG text and attributes: markup as entities, characters XML 1.0
// cannot hold (ESC) and bidirectional overrides written visibly.
func esc(s string) string { return textsafe.XMLText(s) }

// escLines is esc for a tooltip of several lines: the line breaks stay (XML holds them), and a
// line longer than maxTipLine (one that quotes a name longer than a screen) is cut, with its length.
func escLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = textsafe.XMLText(textsafe.Cut(l, maxTipLine))
	}
	return strings.Join(lines, "\n")
}

// maxTipLine is the longest line of a tooltip shown whole.
const maxTipLine = 2 * textsafe.MaxShown

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
