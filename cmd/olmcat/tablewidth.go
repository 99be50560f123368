package main

import (
	"io"
	"os"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// tableWidth is the width the tables of a command fit, as diff's do: $COLUMNS, else the terminal's
// width, else report.DefaultWidth (a pipe, a CI log); never below minTableWidth.
func tableWidth(w io.Writer) int {
	width := 0
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		width = n
	} else if isTerminal(w) {
		width = terminalWidth(fileOf(w))
	}
	if width == 0 {
		width = report.DefaultWidth
	}
	return max(width, minTableWidth)
}

// writeFitted writes a table (rows[0] its header) at most width columns wide: its cells wrapped
// as diff wraps them (report.FitCells), tablewriter's own wrapping off.
func writeFitted(w io.Writer, rows [][]string, width int) error {
	report.FitCells(rows, width)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone), tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft))
	t.Header(rows[0])
	for _, row := range rows[1:] {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// shown is catalog text in a table or a heading: a string longer than a screen cut, with its
// length (textsafe.Cut), then escaped for a terminal (term).
func shown(s string) string { return term(textsafe.Cut(s, textsafe.MaxShown)) }
