package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// Default caps of the Markdown pictures.
const (
	defaultMaxDiagrams = 10
	defaultMaxNodes    = 30
)

// GitHub refuses comments over 65,536 characters: findings stop at findingsBudget bytes and pictures
// at commentBudget, leaving room for the legend and the command; what is left out is counted.
const (
	findingsBudget = 40000
	commentBudget  = 60000
)

// Markdown writes the report for a pull-request comment, with default options (no pictures).
func Markdown(w io.Writer, r *diff.Report) error { return MarkdownOptions(w, r, Options{}) }

// MarkdownOptions writes the report for a pull-request comment: the verdict, a table of changed
// packages, one collapsible section of findings per package (worst first, open when it has breaking
// findings), the upgrade graphs of changed channels (removed ones too) as Mermaid, worst first, a
// legend, and the command that reproduces the diff.
func MarkdownOptions(w io.Writer, r *diff.Report, opts Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s olmcat diff: %s — %s\n\n", verdictBadge(r), Verdict(r), verdictCounts(r))
	fmt.Fprintf(&b, "Compared `%s` (%s) with `%s` (%s).\n\n", code(r.Old.Source), sideCounts(r.Old), code(r.New.Source), sideCounts(r.New))
	names, groups := diff.ByPackage(r.Findings)
	sort.SliceStable(names, func(i, j int) bool { return worstRank(groups[names[i]]) > worstRank(groups[names[j]]) })
	if len(names) > 0 {
		b.WriteString("| package | status | breaking | warnings | info | channels | bundles |\n|---|---|---:|---:|---:|---|---|\n")
		for _, name := range names {
			p := packageStat(r, name)
			c := countOf(groups[name])
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s |\n", cell(displayName(name)), p.Status,
				emphasize(c.Breaking, fmt.Sprint(c.Breaking)), c.Warning, c.Info,
				channelsCounted(p), counted(p.BundlesAdded, p.BundlesRemoved, p.BundlesChanged))
		}
		b.WriteString("\n")
	}
	for _, name := range names {
		writeFindings(&b, name, bySeverity(visible(groups[name])))
	}
	writePictures(&b, r, opts)
	b.WriteString(legend)
	if cmd := reproduce(r, opts); cmd != "" {
		fmt.Fprintf(&b, "Reproduce with:\n\n```sh\n%s\n```\n", cmd)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFindings writes one package's collapsible section, open when it has breaking findings.
func writeFindings(b *strings.Builder, name string, fs []diff.Finding) {
	open := ""
	if worstRank(fs) == diff.Breaking.Rank() {
		open = " open"
	}
	fmt.Fprintf(b, "<details%s><summary><b>%s</b>: %s</summary>\n\n", open, textsafe.XMLText(displayName(name)), severityCounts(countOf(fs)))
	shown := 0
	for _, f := range fs {
		if b.Len() > findingsBudget {
			break
		}
		if shown == 0 {
			b.WriteString("| severity | kind | where | change |\n|---|---|---|---|\n")
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %s |\n", severityBadge(f.Severity), f.Kind, cell(where(f)), cell(change(f)))
		shown++
	}
	if left := len(fs) - shown; left > 0 {
		fmt.Fprintf(b, "\n_Not listed, to keep the comment within GitHub's size limit: %s of this package, the mildest; `-o json` has every finding._\n",
			plural.Of(left, "more finding"))
	}
	b.WriteString("\n</details>\n\n")
}

// writePictures draws the channels whose graph changed, worst first: as many as maxDiagrams and
// the comment budget allow, saying which were left out and where to see them.
func writePictures(b *strings.Builder, r *diff.Report, opts Options) {
	cs := charts(r, opts.Old, opts.New)
	if len(cs) == 0 {
		return
	}
	maxDiagrams, maxNodes := opts.MaxDiagrams, opts.MaxNodes
	if maxDiagrams <= 0 {
		maxDiagrams = defaultMaxDiagrams
	}
	if maxNodes <= 0 {
		maxNodes = defaultMaxNodes
	}
	b.WriteString("#### Upgrade graphs of the changed channels, worst first\n\n_" + picture.MermaidLegend + "_\n\n")
	drawn := 0
	for _, c := range cs {
		if drawn == maxDiagrams {
			break
		}
		var one strings.Builder
		fmt.Fprintf(&one, "%s package **%s**, channel **%s**", severityBadge(c.severity), textsafe.MarkdownInline(c.pkg), textsafe.MarkdownInline(c.channel.Name))
		switch c.channel.Status {
		case picture.Removed:
			one.WriteString(" (removed: its graph in the old catalog)")
		case picture.Added:
			one.WriteString(" (added)")
		}
		one.WriteString(":\n\n```mermaid\n")
		hiddenNodes, hiddenEdges, _ := picture.MermaidChannel(&one, c.channel, maxNodes) // a strings.Builder does not fail
		one.WriteString("```\n")
		if hiddenNodes > 0 || hiddenEdges > 0 {
			fmt.Fprintf(&one, "\n_Not drawn: %s and %s of this channel, further from the change (at most %d bundles a picture); `-o html` draws more, `-o json` lists every upgrade._\n",
				plural.Of(hiddenNodes, "bundle"), plural.Of(hiddenEdges, "upgrade edge"), maxNodes)
		}
		if b.Len()+one.Len() > commentBudget {
			break // the rest are milder or as bad: leave them all out, not a worse one for a milder
		}
		b.WriteString(one.String() + "\n")
		drawn++
	}
	if left := cs[drawn:]; len(left) > 0 {
		var bySev diff.Counts
		var rest []string
		for _, c := range left {
			bySev.Breaking += boolInt(c.severity == diff.Breaking)
			bySev.Warning += boolInt(c.severity == diff.Warning)
			bySev.Info += boolInt(c.severity == diff.Info)
			if len(rest) < maxListed {
				rest = append(rest, textsafe.MarkdownInline(c.pkg+"/"+c.channel.Name))
			}
		}
		if len(left) > maxListed {
			rest = append(rest, fmt.Sprintf("and %d more", len(left)-maxListed))
		}
		var sevs []string
		for _, c := range []struct {
			n    int
			word string
		}{{bySev.Breaking, "breaking"}, {bySev.Warning, "warning"}, {bySev.Info, "info"}} {
			if c.n > 0 {
				sevs = append(sevs, fmt.Sprintf("%d %s", c.n, c.word))
			}
		}
		fmt.Fprintf(b, "_Not drawn, the mildest left out first (at most %d pictures, and the comment within GitHub's size limit): %s whose graph changed (%s): %s. `%s` draws every one._\n\n",
			maxDiagrams, plural.Of(len(left), "more channel"), strings.Join(sevs, ", "), strings.Join(rest, ", "), code(htmlCommand(r, opts)))
	}
}

// maxListed caps the names of the channels left out that the note lists.
const maxListed = 20

// htmlCommand is the command that draws every picture: this diff as an HTML page.
func htmlCommand(r *diff.Report, opts Options) string {
	cmd := reproduce(r, opts)
	if cmd == "" {
		return "olmcat diff OLD NEW -o html"
	}
	if strings.HasSuffix(cmd, " -o markdown") {
		return strings.TrimSuffix(cmd, " -o markdown") + " -o html > report.html"
	}
	return cmd + " -o html > report.html"
}

const legend = `<details><summary>Legend</summary>

- 🔴 **breaking**: installed users lose something they had (an upgrade path, a package, a channel), or the new catalog is invalid. ` + "`--fail-on breaking`" + ` fails on these.
- 🟠 **warning**: users keep working, but a reviewer should look (for example a head moved back to a lower version, or a longer upgrade path).
- ℹ️ **info**: a change worth knowing about, harmless by itself.
- The **head** of a channel is the entry no other entry replaces or skips: where upgrades lead. A bundle is **stranded** when its users could upgrade to the head before and cannot now.
- Pictures: one per channel whose upgrade graph changed, removed channels too (their old graph), the worst first. ` + "`-o html`" + ` draws the same graphs with the versions each skipRange covers.
- Every kind and the rule behind its severity: ` + "`olmcat diff --help`" + ` and diff/SCHEMA.md.

</details>

`

// reproduce is the command line that gave this report.
func reproduce(r *diff.Report, opts Options) string {
	if opts.Command != "" {
		return opts.Command
	}
	if strings.Contains(r.Old.Source, " (") {
		return "" // a --git side absent at its revision: the sources are no longer references
	}
	return CommandLine("olmcat", "diff", r.Old.Source, r.New.Source, "-o", "markdown")
}

// CommandLine quotes words for a POSIX shell: words of safe characters as they are, others in
// single quotes.
func CommandLine(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
			out[i] = w
		} else {
			out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

func verdictBadge(r *diff.Report) string {
	switch Verdict(r) {
	case "BREAKING":
		return "🔴"
	case "WARNING":
		return "🟠"
	}
	return "🟢"
}

func sideCounts(s diff.SideSummary) string {
	parts := []string{s.Format, plural.Of(s.Packages, "package"), plural.Of(s.Channels, "channel"), plural.Of(s.Bundles, "bundle")}
	if s.Problems > 0 {
		parts = append(parts, plural.Of(s.Problems, "problem"))
	}
	return strings.Join(parts, ", ")
}

func packageStat(r *diff.Report, name string) diff.PackageStat {
	for _, p := range r.Packages {
		if p.Name == name {
			return p
		}
	}
	return diff.PackageStat{Name: name, Status: diff.StatusChanged}
}

// counted writes counts of added, removed and changed things, leaving out zeros: "2 added, 1 removed".
func counted(counts ...int) string {
	var parts []string
	for i, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, []string{"added", "removed", "changed"}[i]))
		}
	}
	if len(parts) == 0 {
		return "unchanged"
	}
	return strings.Join(parts, ", ")
}

// channelsCounted writes what happened to a package's channels, each counted once: "1 added, 1
// head moved, 2 changed" (changed: an entry or edge changed, the head did not move).
func channelsCounted(p diff.PackageStat) string {
	var parts []string
	if n := p.ChannelsAdded + p.ChannelsRemoved; n > 0 {
		parts = append(parts, counted(p.ChannelsAdded, p.ChannelsRemoved))
	}
	if p.HeadsMoved > 0 {
		parts = append(parts, plural.Of(p.HeadsMoved, "head")+" moved")
	}
	if n := p.ChannelsChanged - p.HeadsMoved; n > 0 {
		parts = append(parts, fmt.Sprintf("%d changed", n))
	}
	if len(parts) == 0 {
		return "unchanged"
	}
	return strings.Join(parts, ", ")
}

func worstRank(fs []diff.Finding) int {
	w := 0
	for _, f := range fs {
		w = max(w, f.Severity.Rank())
	}
	return w
}

// emphasize sets text in bold when n is not 0.
func emphasize(n int, text string) string {
	if n == 0 {
		return text
	}
	return "**" + text + "**"
}

func severityBadge(s diff.Severity) string {
	switch s {
	case diff.Breaking:
		return "🔴 breaking"
	case diff.Warning:
		return "🟠 warning"
	}
	return "ℹ️ info"
}

// code makes text safe inside a Markdown code span (textsafe.MarkdownCode).
func code(s string) string { return textsafe.MarkdownCode(s) }

// cell makes text safe inside a Markdown table cell (textsafe.MarkdownCell: no HTML, no pipe, no
// code span, no control character); the line breaks olmcat puts between the parts of where and
// change become <br>.
func cell(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = textsafe.MarkdownCell(l)
	}
	return strings.Join(lines, "<br>")
}
