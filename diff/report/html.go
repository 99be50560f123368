package report

import (
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// FormatHTML is the self-contained HTML page of HTML; unlike the formats of Write it needs the models
// of both sides to draw the graphs.
const FormatHTML = "html"

// maxGraphs caps the channel pictures of one page; the rest are counted, not drawn.
const maxGraphs = 100

// HTML writes the report as one self-contained HTML page (inline CSS and SVG, no scripts, nothing
// fetched): the verdict, a table of changed packages and one legend for every picture, then one
// section per package, with its findings and the union graph of each channel the findings name.
// Packages come worst first, in the table and below it; a package with only info findings is
// collapsed, and so are the info findings of the others.
func HTML(w io.Writer, r *diff.Report, oldModel, newModel *model.Model) error {
	names, groups := diff.ByPackage(r.Findings)
	page := htmlPage{Report: r, Verdict: verdict(r), Style: template.CSS(picture.PageStyle + reportStyle)}
	for _, p := range r.Packages {
		if p.Status != diff.StatusUnchanged {
			page.Changed = append(page.Changed, p)
		}
	}
	sort.SliceStable(page.Changed, func(i, j int) bool { return worst(page.Changed[i].Findings) > worst(page.Changed[j].Findings) })
	var drawn []*picture.Graph
	graphs := 0
	for _, name := range names {
		s := htmlSection{Name: textsafe.Cut(displayName(name), textsafe.MaxShown), ID: "package-" + name, Findings: cutLong(groups[name])}
		sort.SliceStable(s.Findings, func(i, j int) bool { return s.Findings[i].Severity.Rank() > s.Findings[j].Severity.Rank() })
		for _, f := range s.Findings {
			s.Counts.Breaking += boolInt(f.Severity == diff.Breaking)
			s.Counts.Warning += boolInt(f.Severity == diff.Warning)
			s.Counts.Info += boolInt(f.Severity == diff.Info)
		}
		s.CountText = severityCounts(s.Counts)
		s.Serious = s.Findings[:s.Counts.Breaking+s.Counts.Warning]
		s.Info = s.Findings[len(s.Serious):]
		for _, p := range r.Packages {
			if p.Name == name {
				s.Status = p.Status
			}
		}
		channels := changedChannels(s.Findings)
		if s.Status == diff.StatusAdded || s.Status == diff.StatusRemoved {
			channels = nil // all of them
		}
		if name != "" && (channels == nil || len(channels) > 0) {
			g, left, err := sectionGraphs(oldModel, newModel, r, name, channels, maxGraphs-graphs)
			if err != nil {
				return err
			}
			if g != nil {
				var b strings.Builder
				if err := picture.WriteChannels(&b, g); err != nil {
					return err
				}
				graphs += len(g.Channels)
				drawn = append(drawn, g)
				s.Graphs = template.HTML(b.String()) // picture escapes every text it draws
			}
			s.LeftOut = left
		}
		page.Sections = append(page.Sections, s)
	}
	sort.SliceStable(page.Sections, func(i, j int) bool {
		return worst(page.Sections[i].Counts) > worst(page.Sections[j].Counts)
	})
	if len(drawn) > 0 {
		var b strings.Builder
		if err := picture.WriteLegend(&b, drawn...); err != nil {
			return err
		}
		page.Legend = template.HTML(b.String())
	}
	// html/template escapes markup but leaves control characters raw: ESC in a name would make the
	// page unreadable as XML and a bidirectional override would reorder what the reviewer reads.
	var out strings.Builder
	if err := htmlTemplate.Execute(&out, page); err != nil {
		return err
	}
	_, err := io.WriteString(w, textsafe.XMLDocument(out.String()))
	return err
}

type htmlPage struct {
	Report   *diff.Report
	Verdict  htmlVerdict
	Style    template.CSS
	Changed  []diff.PackageStat
	Legend   template.HTML // one legend for every picture of the page
	Sections []htmlSection
}

type htmlVerdict struct {
	Class, Text string
}

type htmlSection struct {
	Name, ID, Status string
	Counts           diff.Counts
	CountText        string
	Findings         []diff.Finding
	Serious, Info    []diff.Finding // the breaking and warning findings, and the info ones
	Graphs           template.HTML
	LeftOut          int // changed channels not drawn because the page has maxGraphs already
}

func verdict(r *diff.Report) htmlVerdict {
	s := r.Summary
	counts := severityCounts(s) + " · " + plural.Of(changedPackages(r), "package") + " changed"
	switch {
	case s.Breaking > 0:
		return htmlVerdict{"breaking", "Breaking: " + counts}
	case s.Warning > 0:
		return htmlVerdict{"warning", "Warnings, nothing breaking: " + counts}
	case s.Info > 0:
		return htmlVerdict{"info", "Nothing breaking: " + counts}
	}
	return htmlVerdict{"none", "No changes"}
}

func worst(c diff.Counts) int {
	switch {
	case c.Breaking > 0:
		return 3
	case c.Warning > 0:
		return 2
	case c.Info > 0:
		return 1
	}
	return 0
}

// changedChannels are the channels the findings name, and both default channels when it changed,
// sorted.
func changedChannels(fs []diff.Finding) []string {
	set := map[string]bool{}
	for _, f := range fs {
		if f.Channel != "" {
			set[f.Channel] = true
		}
		if f.Kind == diff.DefaultChannelChanged {
			set[f.Old], set[f.New] = true, true
		}
	}
	delete(set, "")
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// sectionGraphs picks up to limit of the given channels (nil: all) of one package's union graph,
// and says how many it left out; nil when there is nothing to draw.
func sectionGraphs(oldModel, newModel *model.Model, r *diff.Report, pkg string, channels []string, limit int) (*picture.Graph, int, error) {
	g, err := picture.BuildDiff(oldModel, newModel, r, pkg, "")
	if err != nil {
		return nil, 0, nil // a package neither model has (e.g. one that did not load) has nothing to draw
	}
	want := map[string]bool{}
	for _, c := range channels {
		want[c] = true
	}
	var kept []picture.Channel
	left := 0
	for _, ch := range g.Channels {
		switch {
		case channels != nil && !want[ch.Name]:
		case len(kept) < limit:
			kept = append(kept, ch)
		default:
			left++
		}
	}
	if len(kept) == 0 {
		return nil, left, nil
	}
	g.Channels = kept
	return g, left, nil
}

func severityClass(s diff.Severity) string { return string(s) }

const reportStyle = `.verdict{font-size:22px;margin:0 0 4px;padding:8px 12px;border-radius:6px;border-left:6px solid #6e7781;background:#f6f8fa}
.verdict.breaking{border-color:#cf222e;background:#ffebe9}.verdict.warning{border-color:#bf8700;background:#fff8c5}
.verdict.info{border-color:#0969da;background:#ddf4ff}
tr.breaking td{background:#fff5f5}
details.info>summary,details.info-only>summary{cursor:pointer;color:#656d76}
details.info-only>summary h2{display:inline-block;border:0;margin:12px 0 4px}
`

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"where": where, "change": change, "class": severityClass, "plural": plural.Of,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>olmcat diff: {{.Report.Old.Source}} → {{.Report.New.Source}}</title>
<style>
{{.Style}}</style>
</head>
<body>
<h1 class="verdict {{.Verdict.Class}}">{{.Verdict.Text}}</h1>
<p class="muted">olmcat diff <code>{{.Report.Old.Source}}</code> ({{.Report.Old.Format}}) → <code>{{.Report.New.Source}}</code> ({{.Report.New.Format}})</p>
{{- if .Changed}}
<table class="packages">
<tr><th>package</th><th>status</th><th>channels</th><th>bundles</th><th>breaking</th><th>warning</th><th>info</th></tr>
{{- range .Changed}}
<tr><td><a href="#package-{{.Name}}">{{if .Name}}{{.Name}}{{else}}(catalog){{end}}</a></td><td>{{.Status}}</td><td>+{{.ChannelsAdded}} −{{.ChannelsRemoved}}</td><td>+{{.BundlesAdded}} −{{.BundlesRemoved}} ~{{.BundlesChanged}}</td><td>{{.Findings.Breaking}}</td><td>{{.Findings.Warning}}</td><td>{{.Findings.Info}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- .Legend}}
{{- range .Sections}}
<section class="package" id="{{.ID}}">
{{- if .Serious}}
<h2>{{.Name}}{{if .Status}} <span class="badge">{{.Status}}</span>{{end}}{{if .Counts.Breaking}} <span class="badge breaking">{{.Counts.Breaking}} breaking</span>{{end}}{{if .Counts.Warning}} <span class="badge warning">{{plural .Counts.Warning "warning"}}</span>{{end}}</h2>
<p class="muted">{{.CountText}}</p>
{{template "findings" .Serious}}
{{- if .Info}}
<details class="info"><summary>{{.Counts.Info}} info {{if eq .Counts.Info 1}}finding{{else}}findings{{end}}</summary>
{{template "findings" .Info}}
</details>
{{- end}}
{{template "graphs" .}}
{{- else}}
<details class="info-only"><summary><h2>{{.Name}}{{if .Status}} <span class="badge">{{.Status}}</span>{{end}} <span class="badge info">{{.Counts.Info}} info</span></h2></summary>
{{template "findings" .Info}}
{{template "graphs" .}}
</details>
{{- end}}
</section>
{{- end}}
<p class="muted">Report schema {{.Report.SchemaVersion}}; made by olmcat.</p>
</body>
</html>
{{- define "findings"}}
<table class="findings">
<tr><th>severity</th><th>kind</th><th>where</th><th>change</th></tr>
{{- range .}}
<tr class="{{class .Severity}}"><td><span class="badge {{class .Severity}}">{{.Severity}}</span></td><td class="kind">{{.Kind}}</td><td class="where">{{where .}}</td><td class="change">{{change .}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- define "graphs"}}
{{- if .Graphs}}
<h3>Upgrade graphs of the changed channels (old and new together)</h3>
{{.Graphs}}
{{- end}}
{{- if .LeftOut}}
<p class="muted">{{plural .LeftOut "changed channel"}} not drawn: the page already has its limit of graphs.</p>
{{- end}}
{{- end}}
`))
