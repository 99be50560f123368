package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/plural"
)

// Table writes the verdict line, then one table of every finding, worst first, at DefaultWidth
// and without colour.
func Table(w io.Writer, r *diff.Report) error { return TableOptions(w, r, Options{}) }

// TableOptions is Table at the options' width and colour.
func TableOptions(w io.Writer, r *diff.Report, opts Options) error {
	width := opts.Width
	if width <= 0 {
		width = DefaultWidth
	}
	paint := painter(opts.Color)
	shown, hidden := atLeast(visible(r.Findings), opts.MinSeverity)
	line := summaryLine(r, width)
	if hidden.Total() > 0 {
		line += fmt.Sprintf("\n  not shown (below --min-severity %s): %s", opts.MinSeverity, hiddenCounts(hidden))
	}
	if opts.Color {
		line = strings.Replace(line, Verdict(r), paint(verdictSeverity(r), Verdict(r)), 1)
	}
	if _, err := fmt.Fprintln(w, line); err != nil {
		return err
	}
	if len(shown) == 0 {
		return nil
	}
	grouped := groupRows(bySeverity(shown))
	rows := [][]string{{"SEVERITY", "KIND", "WHERE", "CHANGE"}}
	for _, g := range grouped {
		rows = append(rows, []string{string(g.severity), g.kind, g.where, g.change})
	}
	// Every column has a space either side and a border on its right, plus the left border.
	widths := fitColumns(naturalWidths(rows), width-1-3*len(rows[0]))
	for i, row := range rows {
		for c, cell := range row {
			rows[i][c] = wrap(cell, widths[c])
		}
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
	)
	t.Header(rows[0])
	for i, row := range rows[1:] {
		row[0] = paint(grouped[i].severity, row[0])
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// atLeast splits findings into those at min or worse and the others, counted.
func atLeast(fs []diff.Finding, min diff.Severity) ([]diff.Finding, diff.Counts) {
	if min == "" {
		return fs, diff.Counts{}
	}
	var shown, hidden []diff.Finding
	for _, f := range fs {
		if f.Severity.Rank() >= min.Rank() {
			shown = append(shown, f)
		} else {
			hidden = append(hidden, f)
		}
	}
	return shown, countOf(hidden)
}

// hiddenCounts names the non-zero counts: "3 warnings, 200 info".
func hiddenCounts(c diff.Counts) string {
	var parts []string
	if c.Warning > 0 {
		parts = append(parts, plural.Of(c.Warning, "warning"))
	}
	if c.Info > 0 {
		parts = append(parts, fmt.Sprintf("%d info", c.Info))
	}
	return strings.Join(parts, ", ")
}

func verdictSeverity(r *diff.Report) diff.Severity {
	switch {
	case r.Summary.Breaking > 0:
		return diff.Breaking
	case r.Summary.Warning > 0:
		return diff.Warning
	}
	return diff.Info
}

// painter colours text by severity when on is set: breaking bold red, warning yellow, info cyan.
func painter(on bool) func(diff.Severity, string) string {
	codes := map[diff.Severity]string{diff.Breaking: "1;31", diff.Warning: "33", diff.Info: "36"}
	return func(s diff.Severity, text string) string {
		if !on || codes[s] == "" {
			return text
		}
		return "\x1b[" + codes[s] + "m" + text + "\x1b[0m"
	}
}

// naturalWidths is the longest line of each column.
func naturalWidths(rows [][]string) []int {
	out := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			for _, l := range strings.Split(cell, "\n") {
				out[c] = max(out[c], utf8.RuneCountInString(l))
			}
		}
	}
	return out
}

// fitColumns shares avail columns out: every column gets its natural width when they all fit;
// otherwise the widest are cut to one common cap, the largest that fits (no column below 8).
func fitColumns(natural []int, avail int) []int {
	out := append([]int(nil), natural...)
	sum := 0
	for _, n := range natural {
		sum += n
	}
	if sum <= avail {
		return out
	}
	const minWidth = 8
	capWidth := minWidth
	for c := minWidth; ; c++ {
		total, grows := 0, false
		for _, n := range natural {
			total += min(n, c)
			grows = grows || n > c
		}
		if total > avail || !grows {
			break
		}
		capWidth = c
	}
	for i, n := range natural {
		out[i] = min(n, capWidth)
	}
	return out
}

// wrap breaks text into lines of at most width runes: at spaces where it can, inside a word
// longer than the line otherwise (at the last breakWord point that fits). Nothing is cut here (the
// fix, the file:line and a whole image digest are what a reviewer acts on); a name longer than a
// screen reaches it cut already (visible). Linear in the text: a long word is turned into runes
// once, not again for every line cut from it.
func wrap(text string, width int) string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		var line strings.Builder
		lineLen := 0
		for _, word := range strings.Fields(para) {
			n := utf8.RuneCountInString(word)
			if n > width {
				if line.Len() > 0 {
					lines = append(lines, line.String())
					line.Reset()
				}
				r := []rune(word)
				for len(r) > width {
					cut := breakWord(r, width)
					lines, r = append(lines, string(r[:cut])), r[cut:]
				}
				word, n = string(r), len(r)
			}
			switch {
			case line.Len() == 0:
			case lineLen+1+n <= width:
				line.WriteByte(' ')
				lineLen++
				n += lineLen
			default:
				lines = append(lines, line.String())
				line.Reset()
			}
			line.WriteString(word)
			lineLen = n
		}
		lines = append(lines, line.String())
	}
	return strings.Join(lines, "\n")
}

// breakWord says where to break a word longer than width runes: after the last - / : @ or _ that
// fits, or after a dot that does not split a version (name.|v1.2.3, never 1.2.|3), or between a
// lower-case letter and an upper-case one (ClusterService|Version), whichever comes last; else
// after the last dot that fits; else at width.
func breakWord(r []rune, width int) int {
	best, lastDot := 0, 0
	for i := 1; i <= width && i < len(r); i++ {
		prev, next := r[i-1], r[i]
		switch {
		case strings.ContainsRune("-/:@_", prev),
			prev == '.' && !unicode.IsDigit(next),
			unicode.IsLower(prev) && unicode.IsUpper(next):
			best = i
		case prev == '.':
			lastDot = i
		}
	}
	switch {
	case best > 0:
		return best
	case lastDot > 0:
		return lastDot
	}
	return width
}
