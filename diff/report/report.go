// Package report writes a diff.Report for people and programs: terminal tables, JSON (the versioned
// schema of diff/SCHEMA.md), Markdown for a pull-request comment, and a one-line-per-package stat.
// The formats for people open with a one-line verdict and list findings worst first; JSON keeps the
// stable order of the schema.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// Formats accepted by Write.
const (
	FormatTable    = "table"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// DefaultWidth is the table width when the output is not a terminal (pipes, CI logs).
const DefaultWidth = 120

// Options say how to render a report for people.
type Options struct {
	Format string // table (default), json or markdown
	// Width is the widest a table line may be, in columns; 0 means DefaultWidth.
	Width int
	// Color marks severities with ANSI colours in tables.
	Color bool
	// Command is the command line that reproduces the diff, shown in Markdown.
	Command string
	// Old and New are the catalogs compared. With them, Markdown draws the upgrade graph of every
	// channel whose graph changed; without them it draws none.
	Old, New *diff.Side
	// MinSeverity hides findings below it from tables ("" shows all); the verdict line says how many
	// were hidden. JSON always has every finding.
	MinSeverity diff.Severity
	// MaxDiagrams and MaxNodes cap the Markdown pictures (0: 10 diagrams, 30 bundles each).
	MaxDiagrams, MaxNodes int
	// MaxBytes holds the Markdown to this many bytes (0: DefaultMaxBytes; negative: no limit).
	MaxBytes int
}

// Write renders the report in one of the formats, with default options.
func Write(w io.Writer, r *diff.Report, format string) error {
	return Render(w, r, Options{Format: format})
}

// Render renders the report as the options say.
func Render(w io.Writer, r *diff.Report, opts Options) error {
	switch opts.Format {
	case FormatTable, "":
		return TableOptions(w, r, opts)
	case FormatJSON:
		return JSON(w, r)
	case FormatMarkdown:
		return MarkdownOptions(w, r, opts)
	}
	return fmt.Errorf("unknown output format %q (use table, json or markdown)", opts.Format)
}

// JSON writes the report as indented JSON, HTML characters unescaped.
func JSON(w io.Writer, r *diff.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Verdict names the worst news of a report: BREAKING, WARNING, OK (information only) or NO CHANGES.
func Verdict(r *diff.Report) string {
	switch s := r.Summary; {
	case s.Breaking > 0:
		return "BREAKING"
	case s.Warning > 0:
		return "WARNING"
	case s.Info > 0:
		return "OK"
	}
	return "NO CHANGES"
}

// verdictCounts is the verdict line after the verdict: "1 breaking, 2 warnings, 5 info in 3 packages".
func verdictCounts(r *diff.Report) string {
	if r.Summary.Total() == 0 {
		return fmt.Sprintf("the catalogs are the same (%s compared)", plural.Of(len(r.Packages), "package"))
	}
	if n := changedPackages(r); n > 0 {
		return fmt.Sprintf("%s in %s", severityCounts(r.Summary), plural.Of(n, "package"))
	}
	return severityCounts(r.Summary) // findings of the catalog as a whole only
}

// summaryLine is the terminal's first line: the verdict, the counts and what was compared. When
// that is wider than width, what was compared goes on two more lines.
func summaryLine(r *diff.Report, width int) string {
	line := fmt.Sprintf("olmcat diff: %s — %s", Verdict(r), verdictCounts(r))
	old, new := shownSource(r.Old.Source), shownSource(r.New.Source)
	if one := fmt.Sprintf("%s (%s → %s)", line, old, new); utf8.RuneCountInString(one) <= width {
		return one
	}
	return fmt.Sprintf("%s\n  old: %s\n  new: %s", line, old, new)
}

// shownSource is a side's source as the outputs for people show it: escaped, and cut when longer
// than a screen.
func shownSource(s string) string { return textsafe.Terminal(textsafe.Cut(s, textsafe.MaxShown)) }

// bySeverity returns the findings worst first, in the report's stable order within a severity.
func bySeverity(fs []diff.Finding) []diff.Finding {
	out := append([]diff.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity.Rank() > out[j].Severity.Rank() })
	return out
}

func changedPackages(r *diff.Report) int {
	n := 0
	for _, p := range r.Packages {
		if p.Status != diff.StatusUnchanged {
			n++
		}
	}
	return n
}

// displayName names a package in reports; blobs that belong to no package are "(catalog)".
func displayName(pkg string) string {
	if pkg == "" {
		return "(catalog)"
	}
	return pkg
}

// StatWidth is the width --stat fits when the output is not a terminal.
const StatWidth = 80

// Stat writes one line per changed package, its columns aligned under a header, and a total line,
// like git diff --stat, within StatWidth columns.
func Stat(w io.Writer, r *diff.Report) error { return StatOptions(w, r, StatWidth) }

// StatOptions is Stat within width columns (0: StatWidth): a package name too long for what the
// other columns leave is cut, with "…".
func StatOptions(w io.Writer, r *diff.Report, width int) error {
	if width <= 0 {
		width = StatWidth
	}
	rows := [][]string{{"PACKAGE", "STATUS", "CHANNELS", "BUNDLES", "BREAKING", "WARNINGS", "INFO"}}
	for _, p := range r.Packages {
		if p.Status == diff.StatusUnchanged {
			continue
		}
		c := p.Findings
		rows = append(rows, []string{textsafe.Terminal(textsafe.Cut(displayName(p.Name), textsafe.MaxShown)), string(p.Status),
			fmt.Sprintf("+%d -%d ~%d", p.ChannelsAdded, p.ChannelsRemoved, p.ChannelsChanged),
			fmt.Sprintf("+%d -%d ~%d", p.BundlesAdded, p.BundlesRemoved, p.BundlesChanged),
			fmt.Sprint(c.Breaking), fmt.Sprint(c.Warning), fmt.Sprint(c.Info)})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	rest := 3 * (len(widths) - 1)
	for _, n := range widths[1:] {
		rest += n
	}
	widths[0] = max(min(widths[0], width-rest), len("PACKAGE"))
	if len(rows) > 1 {
		for _, row := range rows {
			row[0] = cutColumns(row[0], widths[0])
			var b strings.Builder
			for i, cell := range row {
				if i > 0 {
					b.WriteString(" | ")
				}
				pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
				if i >= 4 { // counts, right-aligned
					b.WriteString(pad + cell)
				} else if i < len(row)-1 {
					b.WriteString(cell + pad)
				}
			}
			if _, err := fmt.Fprintln(w, b.String()); err != nil {
				return err
			}
		}
	}
	total := fmt.Sprintf("%s changed, %d unchanged; %s", plural.Of(changedPackages(r), "package"), len(r.Packages)-changedPackages(r), severityCounts(r.Summary))
	_, err := fmt.Fprintln(w, wrap(total, width))
	return err
}

// cutColumns cuts s to width runes, its last one "…".
func cutColumns(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	return string([]rune(s)[:width-1]) + "…"
}

func severityCounts(c diff.Counts) string {
	return fmt.Sprintf("%d breaking, %s, %d info", c.Breaking, plural.Of(c.Warning, "warning"), c.Info)
}

func countOf(fs []diff.Finding) diff.Counts {
	var c diff.Counts
	for _, f := range fs {
		c.Breaking += boolInt(f.Severity == diff.Breaking)
		c.Warning += boolInt(f.Severity == diff.Warning)
		c.Info += boolInt(f.Severity == diff.Info)
	}
	return c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// visible returns the findings with the catalog text they carry (names, fields, values, messages)
// as textsafe.Terminal shows it, for the formats for people: no newline of a name splits a row or
// a cell, no control character reaches a terminal or a comment. A string longer than
// textsafe.MaxShown is cut, with its length (textsafe.Cut), in the message that quotes it too; a
// message still longer than maxMessage is cut as a whole: whatever a catalog holds, a finding is a
// few lines. JSON keeps the exact text.
func visible(fs []diff.Finding) []diff.Finding {
	out := cutLong(fs)
	for i := range out {
		f := &out[i]
		for _, s := range []*string{&f.Package, &f.Channel, &f.Bundle, &f.Field, &f.Old, &f.New, &f.Message} {
			*s = textsafe.Terminal(*s)
		}
	}
	return out
}

// cutLong returns the findings with every string longer than textsafe.MaxShown cut (textsafe.Cut),
// in the message that quotes it too, and a message longer than maxMessage cut as a whole.
func cutLong(fs []diff.Finding) []diff.Finding {
	out := make([]diff.Finding, len(fs))
	for i, f := range fs {
		for _, s := range []*string{&f.Package, &f.Channel, &f.Bundle, &f.Field, &f.Old, &f.New} {
			if len(*s) > textsafe.MaxShown {
				cut := textsafe.Cut(*s, textsafe.MaxShown)
				f.Message = strings.ReplaceAll(f.Message, *s, cut)
				*s = cut
			}
		}
		f.Message = textsafe.Cut(f.Message, maxMessage)
		out[i] = f
	}
	return out
}

// maxMessage is the longest message shown whole: one that quotes a few names cut to
// textsafe.MaxShown fits.
const maxMessage = 4 * textsafe.MaxShown
