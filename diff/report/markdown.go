package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/plural"
)

// Markdown writes the report for a pull-request comment: a summary, a table of changed packages, and
// one collapsible section of findings per package (open when it has breaking findings).
func Markdown(w io.Writer, r *diff.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### olmcat diff: `%s` → `%s`\n\n", r.Old.Source, r.New.Source)
	s := r.Summary
	fmt.Fprintf(&b, "%s · %s · %s · %s changed\n\n",
		emphasize(s.Breaking, fmt.Sprintf("%d breaking", s.Breaking)), emphasize(s.Warning, plural.Of(s.Warning, "warning")),
		fmt.Sprintf("%d info", s.Info), plural.Of(changedPackages(r), "package"))
	if changedPackages(r) > 0 {
		b.WriteString("| package | status | channels | bundles | breaking | warning | info |\n|---|---|---|---|---|---|---|\n")
		for _, p := range r.Packages {
			if p.Status == diff.StatusUnchanged {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | +%d −%d | +%d −%d ~%d | %d | %d | %d |\n", cell(displayName(p.Name)), p.Status,
				p.ChannelsAdded, p.ChannelsRemoved, p.BundlesAdded, p.BundlesRemoved, p.BundlesChanged,
				p.Findings.Breaking, p.Findings.Warning, p.Findings.Info)
		}
		b.WriteString("\n")
	}
	names, groups := diff.ByPackage(r.Findings)
	for _, name := range names {
		var counts diff.Counts
		for _, f := range groups[name] {
			counts.Breaking += boolInt(f.Severity == diff.Breaking)
			counts.Warning += boolInt(f.Severity == diff.Warning)
			counts.Info += boolInt(f.Severity == diff.Info)
		}
		open := ""
		if counts.Breaking > 0 {
			open = " open"
		}
		fmt.Fprintf(&b, "<details%s><summary><b>%s</b>: %s</summary>\n\n", open, escapeHTML(displayName(name)), severityCounts(counts))
		b.WriteString("| severity | kind | where | change |\n|---|---|---|---|\n")
		for _, f := range groups[name] {
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", severityBadge(f.Severity), f.Kind, cell(where(f)), cell(change(f)))
		}
		b.WriteString("\n</details>\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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

// cell makes text safe inside a Markdown table cell: no HTML, no pipes, line breaks as <br>.
func cell(s string) string {
	s = escapeHTML(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", "<br>")
}

func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
