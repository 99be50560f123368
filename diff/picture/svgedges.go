package picture

import (
	"github.com/olmcat/olmcat/internal/textsafe"

	"fmt"
	"strings"

	"github.com/olmcat/olmcat/internal/plural"
)

// ignoredOpacity fades the edges OLM never takes, so that they do not read as a way up.
const ignoredOpacity = "0.3"

// edgeStroke is how an edge looks: its kind is the dash pattern, its comparison status the colour.
func edgeStroke(kind string, status Status) string {
	colour, width := colourEdge, "1.5"
	switch status {
	case Added:
		colour, width = colourAdded, "2"
	case Removed:
		colour, width = colourRemoved, "2"
	}
	if kind == EdgeV1 {
		colour = colourV1
		width = map[Status]string{Added: "2.5", Removed: "1"}[status]
		if width == "" {
			width = "1.5"
		}
	}
	s := fmt.Sprintf(" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"", colour, width)
	switch kind {
	case EdgeSkips:
		s += " stroke-dasharray=\"6 4\""
	case EdgeV1:
		s += " stroke-dasharray=\"2 3\""
	}
	return s
}

// arrowColour is the colour of an edge's arrowhead and dots: OLM v1's edges are always violet.
func arrowColour(kind string, status Status) string {
	if kind == EdgeV1 {
		return colourV1
	}
	return edgeColour(status)
}

func edgeColour(status Status) string {
	switch status {
	case Added:
		return colourAdded
	case Removed:
		return colourRemoved
	}
	return colourEdge
}

// busesSVG draws every bus of the layout; xl and xr are the left and right edges of the bundles.
func busesSVG(l *channelLayout, xl, xr int) string {
	// farthest[row, kind] is the farthest lane a line leaves that row for: nearer junctions on that
	// line get a dot, so that a line passing by is not read as joining.
	farthest := map[string]int{}
	for _, bs := range l.buses {
		for _, f := range bs.from {
			key := fmt.Sprintf("%d/%s", f, bs.kind)
			if lane, ok := farthest[key]; !ok || bs.lane > lane {
				farthest[key] = bs.lane
			}
		}
	}
	var b strings.Builder
	for _, bs := range l.buses {
		edge, laneX, dir := xr, xr+laneStart+bs.lane*laneGap, 1
		if bs.kind == EdgeReplaces {
			edge, laneX, dir = xl, xl-laneStart-bs.lane*laneGap, -1
		}
		var d, dots strings.Builder
		var names []string
		for _, f := range bs.from {
			y := l.rowY(f) + departOff[bs.kind]
			fmt.Fprintf(&d, "M%d,%dH%d", edge, y, laneX)
			if len(bs.from) > 1 || farthest[fmt.Sprintf("%d/%s", f, bs.kind)] > bs.lane {
				fmt.Fprintf(&dots, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\" fill=\"%s\"/>", laneX, y, arrowColour(bs.kind, bs.status))
			}
			names = append(names, textsafe.Cut(l.rows[f].node.Name, textsafe.MaxShown))
		}
		yt := l.rowY(bs.to) + arriveOff[bs.kind]
		fmt.Fprintf(&d, "M%d,%dV%dM%d,%dH%d", laneX, bs.ymin, bs.ymax, laneX, yt, edge+dir*6)
		title := fmt.Sprintf("%s %s %s", textsafe.Cut(l.rows[bs.to].node.Name, textsafe.MaxShown), bs.kind, strings.Join(names, ", "))
		if bs.kind == EdgeV1 {
			title = fmt.Sprintf("OLM v1 upgrades %s to %s (OLM v0 does not)", strings.Join(names, ", "), textsafe.Cut(l.rows[bs.to].node.Name, textsafe.MaxShown))
		}
		if bs.status != Unchanged {
			title += " (" + string(bs.status) + ")"
		}
		class, opacity := bs.kind, ""
		if bs.ignored {
			title += "; OLM v0 never takes it: " + textsafe.Cut(l.rows[bs.to].node.Name, textsafe.MaxShown) + " is skipped or off the replaces chain from the head, and OLM v0 never upgrades to such a bundle"
			class, opacity = class+" ignored", " opacity=\""+ignoredOpacity+"\""
		}
		fmt.Fprintf(&b, "<g class=\"edge %s\"%s><title>%s</title><path d=\"%s\"%s/>%s", class, opacity, esc(textsafe.Cut(title, maxTipLine)), d.String(), edgeStroke(bs.kind, bs.status), dots.String())
		fmt.Fprintf(&b, "<path d=\"M%d,%dl%d,-3v6z\" fill=\"%s\"/></g>\n", edge, yt, dir*7, arrowColour(bs.kind, bs.status))
	}
	return b.String()
}

// legendBlock explains, with samples, what the graphs' pictures show.
func legendBlock(graphs ...*Graph) block {
	const lineH, wrap = 28, 1300
	var b strings.Builder
	intro := []string{"Bundles in version order, newest at the top. Arrows point to the upgrade target:",
		"replaces on the left of the bundles, skips on the right; a dot joins lines. Hover over a bundle or line for what it is."}
	width := 0
	for i, line := range intro {
		fmt.Fprintf(&b, "<text x=\"0\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n", 12+16*i, colourMuted, esc(line))
		width = max(width, textWidth(line, 6.6))
	}
	x, y := 0, 16*len(intro)+8
	for _, k := range legendKeys(graphs...) {
		sample, sampleW, text := legendSample(k)
		w := sampleW + 6 + textWidth(text, 6.6) + 18
		if x > 0 && x+w > wrap {
			x, y = 0, y+lineH
		}
		fmt.Fprintf(&b, "<g transform=\"translate(%d,%d)\">%s<text x=\"%d\" y=\"13\" font-size=\"12\" fill=\"%s\">%s</text></g>\n",
			x, y, sample, sampleW+6, colourText, esc(text))
		x += w
		width = max(width, x)
	}
	return block{b.String(), width, y + lineH - 6}
}

// legendSample draws one key's sample and says what it means.
func legendSample(key string) (svg string, width int, text string) {
	line := func(kind string, status Status) string {
		return fmt.Sprintf("<path d=\"M0,9H30\"%s/><path d=\"M36,9l-7,-3v6z\" fill=\"%s\"/>", edgeStroke(kind, status), arrowColour(kind, status))
	}
	box := func(n Node) string { return nodeSVG(n, 0, -2, max(60, nodeWidth(n)+8), "sample") }
	boxW := func(n Node) int { return max(60, nodeWidth(n)+8) }
	switch key {
	case keyReplaces:
		return line(EdgeReplaces, Unchanged), 36, "replaces"
	case keySkips:
		return line(EdgeSkips, Unchanged), 36, "skips"
	case keyV1:
		return line(EdgeV1, Unchanged), 36, "OLM v1's upgrade where OLM v0 takes another way (on the right; thick: only in the new catalog, thin: only in the old)"
	case keyIgnored:
		return "<g opacity=\"" + ignoredOpacity + "\">" + line(EdgeReplaces, Unchanged) + "</g>", 36,
			"faded: an edge OLM v0 never takes (into a skipped bundle, or one off the replaces chain)"
	case keySkipRange:
		return fmt.Sprintf("<rect x=\"0\" y=\"0\" width=\"7\" height=\"18\" rx=\"3\" fill=\"%s\" fill-opacity=\"0.25\" stroke=\"%s\" stroke-width=\"1.2\"/>", colourEdge, colourEdge), 7,
			"skipRange: a band over the versions it covers, joined to the bundle declaring it, the range beside"
	case keyHead:
		return box(Node{Head: true}), boxW(Node{Head: true}), "channel head"
	case keyDefault:
		return tag(0, 2, "default", colourDflt, "#ffffff"), tagWidth("default"), "default channel"
	case keyDeprecated:
		return tag(0, 2, "deprecated", colourDeprecated, "#ffffff"), tagWidth("deprecated"), "deprecated package, channel or bundle"
	case keyExternal:
		return box(Node{External: true}), boxW(Node{External: true}), "replaced or skipped, but not in the channel"
	case keyFinding:
		var svg strings.Builder
		for i, c := range []string{colourRemoved, colourWarning} {
			fmt.Fprintf(&svg, "<rect x=\"%d\" y=\"1\" width=\"26\" height=\"16\" rx=\"5\" fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"2.5\"/>", 2+i*32, c)
		}
		fmt.Fprintf(&svg, "<rect x=\"66\" y=\"1\" width=\"26\" height=\"16\" rx=\"5\" fill=\"#ffffff\" stroke=\"%s\"/><circle cx=\"67\" cy=\"2\" r=\"3.5\" fill=\"%s\" stroke=\"#ffffff\"/>", colourNode, colourHead)
		return svg.String(), 94, "ring: a breaking or warning finding names the bundle, its rule or kind beside it; dot: only info findings do"
	case keyAdded, keyRemoved:
		n := Node{Status: Status(key)}
		return box(n) + fmt.Sprintf("<g transform=\"translate(%d,0)\">%s</g>", boxW(n)+6, line(EdgeReplaces, n.Status)), boxW(n) + 42, key + " bundle or edge"
	}
	return box(Node{Stranded: true}), boxW(Node{Stranded: true}), "stranded: its users could reach the head before and cannot now"
}

// bandsSVG draws every skipRange of the layout: a band over the rows of the versions it covers, in
// its lane right of bandX, and a line from the band into the bundle that declares it (xr is the
// right edge of the bundles).
func bandsSVG(l *channelLayout, xr, bandX int) string {
	var b strings.Builder
	for _, bd := range l.bands {
		n := l.rows[bd.row].node
		x := bandX + bd.lane*bandGap
		colour := edgeColour(bd.status)
		y := l.rowY(bd.row) + bandArrive
		text := n.SkipRange
		if bd.status == Removed && n.SkipRangeChanged {
			text = n.OldSkipRange
		}
		title := fmt.Sprintf("skipRange %s of %s: users of %s upgrade straight to it", text, n.Name, plural.Of(bd.covers, "version"))
		if bd.status != Unchanged {
			title += " (" + string(bd.status) + ")"
		}
		fmt.Fprintf(&b, "<g class=\"skiprange %s\" data-range=\"%s\"><title>%s</title>", bd.status, esc(text), esc(title))
		dash := ""
		if bd.status == Removed {
			dash = " stroke-dasharray=\"4 3\""
		}
		if bd.top >= 0 {
			top, bottom := l.rowY(bd.top)-nodeH/2+2, l.rowY(bd.bottom)+nodeH/2-2
			fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"7\" height=\"%d\" rx=\"3\" fill=\"%s\" fill-opacity=\"0.25\" stroke=\"%s\" stroke-width=\"1.2\"%s/>",
				x-3, top, bottom-top, colour, colour, dash)
			if y < top || y > bottom { // join the band to the declaring bundle's row
				end := top
				if y > bottom {
					end = bottom
				}
				fmt.Fprintf(&b, "<path d=\"M%d,%dV%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\"%s/>", x, y, end, colour, dash)
			}
		}
		fmt.Fprintf(&b, "<path d=\"M%d,%dH%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\"%s/><path d=\"M%d,%dl7,-3v6z\" fill=\"%s\"/></g>\n",
			x, y, xr+6, colour, dash, xr, y, colour)
	}
	return b.String()
}
