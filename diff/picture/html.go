package picture

import (
	"fmt"
	"io"
	"strings"
)

// PageStyle is the CSS of the HTML pages around the pictures (graph -o html and diff -o html).
const PageStyle = `body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;margin:24px;line-height:1.45}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid #d0d7de}
h3{font-size:15px;margin:18px 0 6px}
.graphs{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start;margin:8px 0 16px}
.graph{overflow-x:auto;max-width:100%;box-sizing:border-box;border:1px solid #d0d7de;border-radius:6px;padding:12px;background:#fff}
.legend{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:8px 0;overflow-x:auto}
.badge{display:inline-block;font-size:12px;font-weight:600;padding:1px 8px;border-radius:10px;color:#fff;background:#6e7781;vertical-align:middle}
.badge.breaking{background:#cf222e}.badge.warning{background:#bf8700}.badge.info{background:#0969da}
.badge.deprecated{background:#8250df}.badge.default{background:#1b7c83}
.muted{color:#656d76}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.where,td.kind{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap}
td.kind{white-space:nowrap}
td.change{white-space:pre-wrap}
`

// HTML writes a self-contained page with the graph's legend and one SVG per channel.
func HTML(w io.Writer, g *Graph) error {
	var b strings.Builder
	title := "upgrade graph of " + g.Package
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n", esc(title), PageStyle)
	fmt.Fprintf(&b, "<h1>package %s", esc(g.Package))
	if g.Deprecation != "" {
		fmt.Fprintf(&b, " <span class=\"badge deprecated\">deprecated</span>")
	}
	b.WriteString("</h1>\n")
	if g.Deprecation != "" {
		fmt.Fprintf(&b, "<p class=\"muted\">%s</p>\n", esc(g.Deprecation))
	}
	if g.DefaultChannel != "" {
		fmt.Fprintf(&b, "<p>Default channel: <b>%s</b></p>\n", esc(g.DefaultChannel))
	}
	if err := WriteGraphs(&b, g); err != nil {
		return err
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGraphs writes the legend and every channel of g as HTML blocks with inline SVG.
func WriteGraphs(w io.Writer, g *Graph) error {
	if err := WriteLegend(w, g); err != nil {
		return err
	}
	return WriteChannels(w, g)
}

// WriteLegend writes one legend for the pictures of all the graphs, as an HTML block.
func WriteLegend(w io.Writer, graphs ...*Graph) error {
	var b strings.Builder
	b.WriteString("<div class=\"legend\">\n")
	if err := inline(&b, legendBlock(graphs...), "legend"); err != nil {
		return err
	}
	b.WriteString("</div>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteChannels writes every channel of g as HTML blocks with inline SVG, side by side where the
// page is wide enough.
func WriteChannels(w io.Writer, g *Graph) error {
	var b strings.Builder
	b.WriteString("<div class=\"graphs\">\n")
	for i := range g.Channels {
		fmt.Fprintf(&b, "<div class=\"graph\" id=\"%s\">\n", esc(ChannelID(g.Package, g.Channels[i].Name)))
		if err := ChannelSVG(&b, g, i); err != nil {
			return err
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</div>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ChannelID is the HTML id of a channel's picture.
func ChannelID(pkg, channel string) string {
	return "graph-" + idEscaper.Replace(pkg) + "-" + idEscaper.Replace(channel)
}

var idEscaper = strings.NewReplacer(" ", "_", "\"", "_", "'", "_", "<", "_", ">", "_", "&", "_")
