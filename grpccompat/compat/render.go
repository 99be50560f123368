package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olmcat/olmcat/internal/plural"
)

// Report formats accepted by Write.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Write renders the report: a terminal table (text), JSON, or Markdown for a pull-request comment.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case FormatText, "table", "":
		return r.WriteText(w)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case FormatMarkdown:
		return r.WriteMarkdown(w)
	}
	return fmt.Errorf("unknown output format %q (use text, json or markdown)", format)
}

// Summary is one line: what was compared and the verdict.
func (r *Report) Summary() string {
	t := r.Total
	s := fmt.Sprintf("%s (%s) vs %s (%s): %s: %s, %d equal (%d after normalization), %d different, %s",
		r.Left.Target, r.Left.Kind, r.Right.Target, r.Right.Kind, strings.ToUpper(r.Verdict()),
		plural.Of(t.Calls, "call"), t.Equal, t.Normalized, t.Different, plural.Of(t.Errors, "error"))
	if r.Incomplete != "" {
		s += "\nincomplete: " + r.Incomplete
	}
	return s
}

func (r *Report) tableRows() [][]string {
	rows := make([][]string, 0, len(r.Methods)+1)
	for _, m := range append(r.Methods, r.Total) {
		name := shortMethod(m.Method)
		if m.Method == "" {
			name = "TOTAL"
		}
		rows = append(rows, []string{name, strconv.Itoa(m.Calls), strconv.Itoa(m.Equal), strconv.Itoa(m.Normalized),
			strconv.Itoa(m.Different), strconv.Itoa(m.Errors)})
	}
	return rows
}

var tableHeader = []string{"METHOD", "CALLS", "EQUAL", "NORMALIZED", "DIFFERENT", "ERRORS"}

func (r *Report) appliedList() []string {
	var out []string
	for _, n := range r.Normalizations {
		if n.Calls > 0 {
			out = append(out, fmt.Sprintf("%s (%s, %s)", n.Name, n.Refs, plural.Of(n.Calls, "call")))
		}
	}
	return out
}

// TextWidth is the width of the summary, the table and the normalizations of the text report,
// continuation lines indented. Each difference keeps its request, its answers and each field's
// line whole, as the package documentation describes them: they are read and searched as they are.
const TextWidth = 80

// WriteText writes the summary, the per-method table, the normalizations applied, then each
// difference and error, within TextWidth columns.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	summary := r.Summary()
	if first, _, _ := strings.Cut(summary, "\n"); len([]rune(first)) > TextWidth {
		// What was compared on the first line, the verdict and its counts on the next.
		verdict := ": " + strings.ToUpper(r.Verdict()) + ": "
		if i := strings.Index(summary, verdict); i > 0 {
			summary = summary[:i+1] + "\n  " + summary[i+2:]
		}
	}
	b.WriteString(fold(summary, TextWidth, "  "))
	writeMethodTable(&b, r.tableRows())
	if applied := r.appliedList(); len(applied) > 0 {
		b.WriteString(fold("normalizations applied: "+strings.Join(applied, ", "), TextWidth, "  "))
	} else if len(r.Normalizations) == 0 {
		fmt.Fprintln(&b, "normalizations: none (strict)")
	}
	for _, d := range r.Differences {
		fmt.Fprintf(&b, "\n%s %s %s\n", d.ID, shortMethod(d.Method), compactRequest(d.Request))
		fmt.Fprintf(&b, "  left:  %s\n  right: %s\n", hang(recut(d.Left, 300)), hang(recut(d.Right, 300)))
		fmt.Fprintf(&b, "  differences:\n%s\n", indent(strings.TrimRight(d.Diff, "\n"), "    "))
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "\n... %d more differences not shown (raise the limit to see them)\n", r.Omitted)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "\nerror: %s %s %s: %s side: %s\n", e.ID, shortMethod(e.Method), compactRequest(e.Request), e.Side, printable(e.Error))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeMethodTable writes the per-method counts as aligned columns (the method left-aligned, the
// counts right-aligned, two spaces between): 79 columns with the longest method name.
func writeMethodTable(b *bytes.Buffer, rows [][]string) {
	all := append([][]string{tableHeader}, rows...)
	widths := make([]int, len(tableHeader))
	for _, row := range all {
		for i, cell := range row {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, row := range all {
		var line strings.Builder
		for i, cell := range row {
			if i == 0 {
				line.WriteString(cell + strings.Repeat(" ", widths[0]-len(cell)))
				continue
			}
			line.WriteString("  " + strings.Repeat(" ", widths[i]-len(cell)) + cell)
		}
		b.WriteString(line.String() + "\n")
	}
}

// fold breaks each line of s at spaces so that it fits width columns, the lines it adds starting
// with indent; a word longer than a line stays whole. The result ends with a newline.
func fold(s string, width int, indent string) string {
	var out strings.Builder
	for _, para := range strings.Split(s, "\n") {
		lead := para[:len(para)-len(strings.TrimLeft(para, " "))]
		line, n := lead, len([]rune(lead))
		first := true
		for _, word := range strings.Fields(para) {
			wn := len([]rune(word))
			switch {
			case first:
				line, n, first = line+word, n+wn, false
			case n+1+wn <= width:
				line, n = line+" "+word, n+1+wn
			default:
				out.WriteString(line + "\n")
				line, n = indent+word, len([]rune(indent))+wn
			}
		}
		out.WriteString(line + "\n")
	}
	return out.String()
}

// WriteMarkdown writes the report for a pull-request comment: verdict, table, normalizations,
// and each difference folded in a <details> block.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	icon := map[string]string{"equal": "✅", "different": "❌", "incomplete": "⚠️"}[r.Verdict()]
	fmt.Fprintf(&b, "### %s gRPC parity: %s\n\n", icon, r.Verdict())
	fmt.Fprintf(&b, "`%s` (%s) vs `%s` (%s)", r.Left.Target, r.Left.Kind, r.Right.Target, r.Right.Kind)
	if r.Incomplete != "" {
		fmt.Fprintf(&b, "\n\n**Incomplete:** %s", r.Incomplete)
	}
	b.WriteString("\n\n| " + strings.Join(tableHeader, " | ") + " |\n|" + strings.Repeat(" ---: |", len(tableHeader)) + "\n")
	for _, row := range r.tableRows() {
		if row[0] == "TOTAL" {
			for i := range row {
				row[i] = "**" + row[i] + "**"
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	if applied := r.appliedList(); len(applied) > 0 {
		fmt.Fprintf(&b, "\nNormalizations applied: %s.\n", strings.Join(applied, ", "))
	}
	for _, d := range r.Differences {
		fmt.Fprintf(&b, "\n<details><summary><code>%s %s %s</code></summary>\n\n", d.ID, shortMethod(d.Method), htmlEscape(compactRequest(d.Request)))
		fmt.Fprintf(&b, "```text\n%s\n```\n\nleft:\n```json\n%s\n```\nright:\n```json\n%s\n```\n</details>\n",
			fence(strings.TrimRight(d.Diff, "\n")), fence(recut(d.Left, 1500)), fence(recut(d.Right, 1500)))
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "\n%d more differences not shown.\n", r.Omitted)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "\n- error: `%s %s` on the %s side: %s\n", e.ID, shortMethod(e.Method), e.Side, printable(e.Error))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func compactRequest(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return printable(string(raw))
	}
	return printable(b.String())
}

// hang indents the lines after the first under "  left:  ".
func hang(s string) string { return strings.ReplaceAll(s, "\n", "\n         ") }

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// fence keeps a code block closed whatever the text holds.
func fence(s string) string { return strings.ReplaceAll(s, "```", "` ` `") }

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
