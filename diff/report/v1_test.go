package report_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/report"
)

// TestV1Rows: on every diff pair compared for both generations (the default), each OLM v1 finding
// is a row of the table and of the Markdown comment in its own words, the verdict counts them, the
// table keeps to 80 columns and the comment to its budget.
func TestV1Rows(t *testing.T) {
	v1Rows := 0
	for _, name := range allPairs(t) {
		oldRef, newRef := pairPaths(t, name)
		oldSide, newSide, err := input.OpenPair(context.Background(), oldRef, newRef, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := diff.Compare(oldSide, newSide)
		opts := report.Options{Old: oldSide, New: newSide, Width: 80}
		table := render(t, r, opts)
		for _, line := range strings.Split(table, "\n") {
			// the sources' lines above the table are paths, as long as they are
			if strings.ContainsAny(line[:min(len(line), 4)], "│┌├└") && utf8.RuneCountInString(line) > 80 {
				t.Errorf("%s: a table line of %d columns at 80: %s", name, utf8.RuneCountInString(line), line)
			}
		}
		opts.Format, opts.MaxBytes = report.FormatMarkdown, report.MinMaxBytes
		md := render(t, r, opts)
		if n := len(md); n > report.MinMaxBytes {
			t.Errorf("%s: %d bytes of Markdown over --max-bytes %d", name, n, report.MinMaxBytes)
		}
		opts.MaxBytes = -1
		full := render(t, r, opts)
		for _, f := range r.Findings {
			if f.Generations() != "v1" {
				continue
			}
			v1Rows++
			if !strings.Contains(full, "`"+string(f.Kind)+"`") || !strings.Contains(full, f.Message) {
				t.Errorf("%s: the comment lacks %s %q", name, f.Kind, f.Message)
			}
			if !strings.Contains(table, string(f.Kind)) {
				t.Errorf("%s: the table lacks %s", name, f.Kind)
			}
		}
		if !utf8.ValidString(full) {
			t.Errorf("%s: invalid UTF-8", name)
		}
	}
	if v1Rows == 0 {
		t.Error("no OLM v1 finding in any pair: nothing checked")
	}
}
