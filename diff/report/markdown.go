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

// DefaultMaxBytes is the largest Markdown comment written by default: GitHub refuses comments over
// 65,536 characters, and a byte is at most a character.
const DefaultMaxBytes = 65000

// MinMaxBytes is the smallest size limit a comment can be held to: the verdict, what was compared,
// the note of what did not fit and the commands that show it.
const MinMaxBytes = 4000

// maxSourceShown cuts the catalog references of the "Compared" line, so that it fits any limit.
const maxSourceShown = 256

// Markdown writes the report for a pull-request comment, with default options (no pictures).
func Markdown(w io.Writer, r *diff.Report) error { return MarkdownOptions(w, r, Options{}) }

// MarkdownOptions writes the report for a pull-request comment, within opts.MaxBytes: the verdict,
// then every breaking finding, then the warnings, then the info findings (each severity one section
// of collapsible packages, the worst package first; breaking and warnings open), a table of the
// changed packages, the upgrade graphs of changed channels (removed ones too) as Mermaid, worst
// first, the legend and the command that reproduces the diff. When the comment would be larger
// than the limit, what comes last is left out first (info before warnings before breaking findings;
// a section is cut at a finding, never inside one), and a table says how many of each were not
// shown, with the commands that show all of it.
func MarkdownOptions(w io.Writer, r *diff.Report, opts Options) error {
	limit := opts.MaxBytes
	switch {
	case limit == 0:
		limit = DefaultMaxBytes
	case limit > 0 && limit < MinMaxBytes:
		return fmt.Errorf("a Markdown comment cannot be held to %d bytes: the smallest limit is %d", limit, MinMaxBytes)
	}
	doc := markdownDoc(r, opts, -1)
	if limit > 0 && len(doc) > limit {
		doc = markdownDoc(r, opts, limit)
	}
	_, err := io.WriteString(w, doc)
	return err
}

// mdSection is what one part of the comment showed of what it had.
type mdSection struct {
	label        string
	shown, total int
	packagesLeft int // packages with findings not shown (findings sections)
}

// markdownDoc writes the comment; with limit >= 0 the body stops where the next part would not
// fit, and a note says what was left out.
func markdownDoc(r *diff.Report, opts Options, limit int) string {
	var head strings.Builder
	fmt.Fprintf(&head, "### %s olmcat diff: %s — %s\n\n", verdictBadge(r), Verdict(r), verdictCounts(r))
	fmt.Fprintf(&head, "Compared `%s` (%s) with `%s` (%s).\n\n", textsafe.Cut(code(r.Old.Source), maxSourceShown), sideCounts(r.Old),
		textsafe.Cut(code(r.New.Source), maxSourceShown), sideCounts(r.New))
	repro := ""
	if cmd := reproduce(r, opts); cmd != "" {
		repro = fmt.Sprintf("Reproduce with:\n\n```sh\n%s\n```\n", cmd)
	}
	legendText := legend
	names, groups := diff.ByPackage(r.Findings)
	sort.SliceStable(names, func(i, j int) bool { return worstRank(groups[names[i]]) > worstRank(groups[names[j]]) })
	cs := charts(r, opts.Old, opts.New)

	avail := -1 // the bytes the body may take; -1: no limit
	if limit >= 0 {
		upper := omittedNote(r, opts, sectionsAtMost(r, len(names), len(cs)), limit)
		avail = limit - head.Len() - len(upper) - len(legendText) - len(repro)
		if avail < 10000 { // a small limit: the findings before the legend
			avail += len(legendText)
			legendText = ""
		}
		if avail < 0 {
			avail += len(repro)
			repro = ""
		}
		avail = max(avail, 0)
	}
	var body strings.Builder
	full := true // everything so far was shown
	fits := func(n int) bool { return avail < 0 || body.Len()+n <= avail }
	var sections []mdSection
	for _, sev := range []diff.Severity{diff.Breaking, diff.Warning, diff.Info} {
		sec := writeSeverity(&body, sev, names, groups, fits, &full)
		sections = append(sections, sec)
	}
	sections = append(sections, writePackageTable(&body, r, names, groups, fits, &full))
	drawn, total := 0, len(cs)
	if full {
		bodyLimit := -1
		if avail >= 0 {
			bodyLimit = avail
		}
		drawn = writePictures(&body, r, opts, cs, bodyLimit)
	}
	sections = append(sections, mdSection{label: "pictures of changed channels", shown: drawn, total: total})
	var out strings.Builder
	out.WriteString(head.String())
	out.WriteString(body.String())
	if !full || (limit >= 0 && drawn < min(total, maxDiagramsOf(opts))) {
		out.WriteString(omittedNote(r, opts, sections, limit))
	}
	out.WriteString(legendText)
	out.WriteString(repro)
	return out.String()
}

// writeSeverity writes the section of one severity: a collapsible block per package (worst package
// first) listing its findings of that severity, as long as fits allows; once a finding does not
// fit, nothing more is written and full becomes false.
func writeSeverity(b *strings.Builder, sev diff.Severity, names []string, groups map[string][]diff.Finding, fits func(int) bool, full *bool) mdSection {
	sec := mdSection{label: map[diff.Severity]string{diff.Breaking: "🔴 breaking findings", diff.Warning: "🟠 warnings", diff.Info: "ℹ️ info findings"}[sev]}
	var pkgs []string
	bySev := map[string][]diff.Finding{}
	for _, name := range names {
		for _, f := range groups[name] {
			if f.Severity == sev {
				bySev[name] = append(bySev[name], f)
			}
		}
		if len(bySev[name]) > 0 {
			pkgs = append(pkgs, name)
			sec.total += len(bySev[name])
		}
	}
	if sec.total == 0 {
		return sec
	}
	title := map[diff.Severity]string{diff.Breaking: "🔴 Breaking", diff.Warning: "🟠 Warnings", diff.Info: "ℹ️ Info"}[sev]
	heading := fmt.Sprintf("#### %s: %s in %s\n\n", title, plural.Of(sec.total, "finding"), plural.Of(len(pkgs), "package"))
	open := " open"
	if sev == diff.Info {
		open = ""
	}
	const thead = "| severity | kind | where | change |\n|---|---|---|---|\n"
	const foot = "\n</details>\n\n"
	for _, name := range pkgs {
		fs := visible(bySev[name])
		if !*full {
			sec.packagesLeft++
			continue
		}
		start := fmt.Sprintf("<details%s><summary><b>%s</b>: %s</summary>\n\n", open, textsafe.XMLText(textsafe.Cut(displayName(name), textsafe.MaxShown)),
			plural.Of(len(fs), map[diff.Severity]string{diff.Breaking: "breaking finding", diff.Warning: "warning", diff.Info: "info finding"}[sev]))
		if sec.shown == 0 {
			start = heading + start
		}
		var rows strings.Builder
		n := 0
		for _, f := range fs {
			row := fmt.Sprintf("| %s | `%s` | %s | %s |\n", severityBadge(f.Severity), f.Kind, cell(where(f)), cell(change(f)))
			if !fits(len(start) + len(thead) + rows.Len() + len(row) + len(foot)) {
				*full = false
				break
			}
			rows.WriteString(row)
			n++
		}
		if n > 0 {
			b.WriteString(start + thead + rows.String() + foot)
			sec.shown += n
		}
		if n < len(fs) {
			sec.packagesLeft++
		}
	}
	return sec
}

// writePackageTable writes the table of changed packages, a row a package with findings, as long
// as fits allows (and only when everything before it was written).
func writePackageTable(b *strings.Builder, r *diff.Report, names []string, groups map[string][]diff.Finding, fits func(int) bool, full *bool) mdSection {
	sec := mdSection{label: "rows of the table of changed packages", total: len(names)}
	if len(names) == 0 || !*full {
		return sec
	}
	const thead = "#### Packages\n\n| package | status | breaking | warnings | info | channels | bundles |\n|---|---|---:|---:|---:|---|---|\n"
	var rows strings.Builder
	for _, name := range names {
		p := packageStat(r, name)
		c := countOf(groups[name])
		row := fmt.Sprintf("| %s | %s | %s | %d | %d | %s | %s |\n", cell(textsafe.Cut(displayName(name), textsafe.MaxShown)), p.Status,
			emphasize(c.Breaking, fmt.Sprint(c.Breaking)), c.Warning, c.Info,
			channelsCounted(p), counted(p.BundlesAdded, p.BundlesRemoved, p.BundlesChanged))
		if !fits(len(thead) + rows.Len() + len(row) + 1) {
			*full = false
			break
		}
		rows.WriteString(row)
		sec.shown++
	}
	if sec.shown > 0 {
		b.WriteString(thead + rows.String() + "\n")
	}
	return sec
}

// sectionsAtMost are sections with the largest counts the note of what was left out can hold, to
// reserve its room before the body is written.
func sectionsAtMost(r *diff.Report, packages, pictures int) []mdSection {
	t := r.Summary.Total()
	return []mdSection{
		{label: "🔴 breaking findings", shown: t, total: t, packagesLeft: packages},
		{label: "🟠 warnings", shown: t, total: t, packagesLeft: packages},
		{label: "ℹ️ info findings", shown: t, total: t, packagesLeft: packages},
		{label: "rows of the table of changed packages", shown: packages, total: packages},
		{label: "pictures of changed channels", shown: pictures, total: pictures},
	}
}

// omittedNote says what the comment left out, section by section, and the commands that show all
// of it.
func omittedNote(r *diff.Report, opts Options, sections []mdSection, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#### Not shown\n\nTo keep this comment within %s bytes (`--max-bytes`), the mildest were left out first:\n\n", textsafe.Thousands(limit))
	b.WriteString("| | shown | not shown |\n|---|---:|---:|\n")
	for _, s := range sections {
		if s.total == 0 {
			continue
		}
		left := textsafe.Thousands(s.total - s.shown)
		if s.packagesLeft > 0 {
			left += " (" + plural.Of(s.packagesLeft, "package") + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.label, textsafe.Thousands(s.shown), left)
	}
	cmd := code(reproduce(r, opts))
	if cmd == "" || len(cmd) > maxNoteCommand {
		cmd = "olmcat diff OLD NEW -o markdown"
	}
	fmt.Fprintf(&b, "\nAll of it: `%s --max-bytes 0`; every finding, as JSON: `%s -o json`; every picture: `%s`.\n\n",
		cmd, strings.TrimSuffix(cmd, " -o markdown"), htmlCommandOf(cmd))
	return b.String()
}

// maxNoteCommand is the longest command the note of what was left out quotes; a longer one is
// written olmcat diff OLD NEW.
const maxNoteCommand = 200

func maxDiagramsOf(opts Options) int {
	if opts.MaxDiagrams <= 0 {
		return defaultMaxDiagrams
	}
	return opts.MaxDiagrams
}

// writePictures draws the channels whose graph changed, worst first: as many as maxDiagrams and,
// with limit >= 0, as fit within limit bytes of b (the note of those left out included), saying
// which were left out and where to see them. It returns how many it drew.
func writePictures(b *strings.Builder, r *diff.Report, opts Options, cs []chart, limit int) int {
	if len(cs) == 0 {
		return 0
	}
	maxDiagrams, maxNodes := maxDiagramsOf(opts), opts.MaxNodes
	if maxNodes <= 0 {
		maxNodes = defaultMaxNodes
	}
	legend := picture.MermaidLegend
	for _, c := range cs {
		if picture.HasV1Edges(c.channel) {
			legend += picture.MermaidLegendV1
			break
		}
	}
	heading := "#### Upgrade graphs of the changed channels, worst first\n\n_" + legend + "_\n\n"
	var pieces []string
	size := len(heading)
	for _, c := range cs {
		if len(pieces) == maxDiagrams {
			break
		}
		var one strings.Builder
		fmt.Fprintf(&one, "%s package **%s**, channel **%s**", severityBadge(c.severity), textsafe.MarkdownInline(textsafe.Cut(c.pkg, textsafe.MaxShown)),
			textsafe.MarkdownInline(textsafe.Cut(c.channel.Name, textsafe.MaxShown)))
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
		one.WriteString("\n")
		if limit >= 0 && b.Len()+size+one.Len() > limit {
			break // the rest are milder or as bad: leave them all out, not a worse one for a milder
		}
		pieces = append(pieces, one.String())
		size += one.Len()
	}
	// The note of those left out must fit too: drop the mildest pictures until it does.
	for {
		note := picturesLeftOut(r, opts, cs[len(pieces):], maxDiagrams)
		total := len(heading) + len(note)
		for _, p := range pieces {
			total += len(p)
		}
		if limit < 0 || b.Len()+total <= limit {
			b.WriteString(heading + strings.Join(pieces, "") + note)
			return len(pieces)
		}
		if len(pieces) == 0 {
			return 0 // not even the note fits: the note of the whole comment counts them
		}
		pieces = pieces[:len(pieces)-1]
	}
}

// picturesLeftOut is the note of the pictures not drawn, or "".
func picturesLeftOut(r *diff.Report, opts Options, left []chart, maxDiagrams int) string {
	if len(left) == 0 {
		return ""
	}
	var bySev diff.Counts
	var rest []string
	for _, c := range left {
		bySev.Breaking += boolInt(c.severity == diff.Breaking)
		bySev.Warning += boolInt(c.severity == diff.Warning)
		bySev.Info += boolInt(c.severity == diff.Info)
		if len(rest) < maxListed {
			rest = append(rest, textsafe.MarkdownInline(textsafe.Cut(c.pkg+"/"+c.channel.Name, maxListedName)))
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
	return fmt.Sprintf("_Not drawn, the mildest left out first (at most %d pictures, and the comment within GitHub's size limit): %s whose graph changed (%s): %s. `%s` draws every one._\n\n",
		maxDiagrams, plural.Of(len(left), "more channel"), strings.Join(sevs, ", "), strings.Join(rest, ", "), code(htmlCommand(r, opts)))
}

// maxListedName cuts each name the note of pictures left out lists.
const maxListedName = 100

// maxListed caps the names of the channels left out that the note lists.
const maxListed = 20

// htmlCommand is the command that draws every picture: this diff as an HTML page.
func htmlCommand(r *diff.Report, opts Options) string {
	cmd := reproduce(r, opts)
	if cmd == "" {
		return "olmcat diff OLD NEW -o html"
	}
	return htmlCommandOf(cmd)
}

// htmlCommandOf is the command cmd (a diff writing Markdown) writing HTML.
func htmlCommandOf(cmd string) string {
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
