package report

// FitCells wraps the cells of a table (rows[0] its header) in place so that, drawn with a border
// around and between its columns (as tablewriter draws it), the table is at most width columns
// wide, as the diff table is: every column keeps its natural width when they all fit, else the
// widest are cut to one common cap (no column below 8); a cell breaks at spaces, else inside a word
// at a dash, a dot before a letter, or between a lower-case and an upper-case letter.
func FitCells(rows [][]string, width int) {
	if len(rows) == 0 {
		return
	}
	widths := fitColumns(naturalWidths(rows), width-1-3*len(rows[0]))
	for i, row := range rows {
		for c, cell := range row {
			rows[i][c] = wrap(cell, widths[c])
		}
	}
}
