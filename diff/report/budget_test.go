package report_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// changedPair generates a catalog of n packages and a revision of it in which every package
// changed: each channel's head withdrawn (breaking: its users are stranded; warnings: heads moved
// back) and a new bundle in the stable channel (info).
func changedPair(t *testing.T, n int) (*diff.Side, *diff.Side) {
	t.Helper()
	o := generate.Options{Packages: n, BundlesPerPackage: 6, SkipEvery: 2, DescriptionBytes: 10, Seed: 3}
	oldCat, newCat := generate.Catalog(o), generate.Catalog(o)
	for i := range newCat.Channels {
		c := &newCat.Channels[i]
		if k := len(c.Entries); k > 1 {
			c.Entries = append([]fbc.ChannelEntry(nil), c.Entries[:k-1]...)
		}
	}
	return &diff.Side{Source: "old", Catalog: oldCat}, &diff.Side{Source: "new", Catalog: newCat}
}

// notShownRow reads a row of the note of what was left out: shown, not shown.
var notShownRow = regexp.MustCompile(`(?m)^\| (🔴 breaking findings|🟠 warnings|ℹ️ info findings|rows of the table of changed packages|pictures of changed channels) \| ([\d,]+) \| ([\d,]+)(?: \((\d+) packages?\))? \|$`)

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMarkdownBudget: on 1, 200 and 2,000 changed packages, at the default limit and at smaller
// ones, the comment is within the limit, starts with the verdict, lists breaking findings before
// warnings before info, and the note of what did not fit counts exactly what is not there.
func TestMarkdownBudget(t *testing.T) {
	for _, n := range []int{1, 200, 2000} {
		oldSide, newSide := changedPair(t, n)
		r := diff.Compare(oldSide, newSide)
		if r.Summary.Breaking == 0 || r.Summary.Warning == 0 || r.Summary.Info == 0 {
			t.Fatalf("%d packages: want findings of every severity, got %+v", n, r.Summary)
		}
		limits := []int{0, 20000, report.MinMaxBytes}
		if n > 200 {
			limits = limits[:1]
		}
		for _, limit := range limits {
			name := fmt.Sprintf("%d packages, --max-bytes %d", n, limit)
			opts := report.Options{Old: oldSide, New: newSide, MaxBytes: limit}
			md := markdown(t, r, opts)
			bound := limit
			if bound == 0 {
				bound = report.DefaultMaxBytes
			}
			if len(md) > bound {
				t.Errorf("%s: %d bytes", name, len(md))
			}
			if !strings.HasPrefix(md, "### 🔴 olmcat diff: BREAKING — ") {
				t.Errorf("%s: the verdict is not first:\n%.300s", name, md)
			}
			// Severities of the rows in order: never a milder one before a worse one.
			rows := regexp.MustCompile(`(?m)^\| (🔴 breaking|🟠 warning|ℹ️ info) \| `).FindAllStringSubmatch(md, -1)
			rank := map[string]int{"🔴 breaking": 3, "🟠 warning": 2, "ℹ️ info": 1}
			count := map[string]int{}
			for i, row := range rows {
				count[row[1]]++
				if i > 0 && rank[row[1]] > rank[rows[i-1][1]] {
					t.Errorf("%s: a %s row after a %s row", name, row[1], rows[i-1][1])
					break
				}
			}
			note := notShownRow.FindAllStringSubmatch(md, -1)
			all := markdown(t, r, report.Options{Old: oldSide, New: newSide, MaxBytes: -1})
			if len(all) <= bound {
				if md != all || len(note) > 0 || count["🔴 breaking"] != r.Summary.Breaking || count["ℹ️ info"] != r.Summary.Info {
					t.Errorf("%s: everything fits, yet %d rows, note %q", name, len(rows), note)
				}
				continue
			}
			if len(note) == 0 {
				t.Fatalf("%s: nothing said of what was left out:\n%s", name, md[max(0, len(md)-3000):])
			}
			want := map[string][2]int{
				"🔴 breaking findings":                   {count["🔴 breaking"], r.Summary.Breaking},
				"🟠 warnings":                            {count["🟠 warning"], r.Summary.Warning},
				"ℹ️ info findings":                      {count["ℹ️ info"], r.Summary.Info},
				"rows of the table of changed packages": {strings.Count(md, " | changed | "), n},
				"pictures of changed channels":          {strings.Count(md, "```mermaid"), -1},
			}
			for _, m := range note {
				w := want[m[1]]
				shown, left := atoi(t, m[2]), atoi(t, m[3])
				if shown != w[0] || (w[1] >= 0 && shown+left != w[1]) {
					t.Errorf("%s: note says %s: %d shown, %d not; the comment shows %d of %d", name, m[1], shown, left, w[0], w[1])
				}
			}
			if !strings.Contains(md, "All of it: `olmcat diff old new -o markdown --max-bytes 0`; every finding, as JSON: `olmcat diff old new -o json`") {
				t.Errorf("%s: no command that shows all of it", name)
			}
			if count["🔴 breaking"] == 0 {
				t.Errorf("%s: not one breaking finding shown", name)
			}
		}
	}
}

// At the smallest limit with catalog references and a command long enough to fill it, the
// comment still fits: the references are cut, the command of the note is written OLD NEW.
func TestMarkdownBudgetLongReferences(t *testing.T) {
	oldSide, newSide := changedPair(t, 20)
	oldSide.Source, newSide.Source = strings.Repeat("\xff", 4000), strings.Repeat("\u202e", 4000)
	r := diff.Compare(oldSide, newSide)
	opts := report.Options{Old: oldSide, New: newSide, MaxBytes: report.MinMaxBytes, Command: "olmcat diff " + strings.Repeat("x", 3000)}
	md := markdown(t, r, opts)
	if len(md) > report.MinMaxBytes || !strings.Contains(md, "`olmcat diff OLD NEW -o markdown --max-bytes 0`") {
		t.Errorf("%d bytes:\n%s", len(md), md)
	}
	if err := report.Render(&strings.Builder{}, r, report.Options{Format: report.FormatMarkdown, MaxBytes: report.MinMaxBytes - 1}); err == nil {
		t.Error("a limit below the smallest is accepted")
	}
}
