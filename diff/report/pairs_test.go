package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
)

const diffPairs = "../../../shared/diffpairs"

// pairPaths returns the old and new catalog of a pair of ../shared/diffpairs ("fbc/NAME" or
// "sqlite/NAME").
func pairPaths(t *testing.T, name string) (string, string) {
	t.Helper()
	dir := filepath.Join(diffPairs, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("diff pairs not available (%s): %v", dir, err)
	}
	if strings.HasPrefix(name, "sqlite/") {
		return filepath.Join(dir, "old.db"), filepath.Join(dir, "new.db")
	}
	return filepath.Join(dir, "old"), filepath.Join(dir, "new")
}

// loadPair loads both sides of an FBC diff pair, for a test to edit them.
func loadPair(t *testing.T, name string) (oldCat, newCat *fbc.Catalog) {
	t.Helper()
	oldRef, newRef := pairPaths(t, name)
	oldCat, err := fbc.Load(oldRef)
	if err != nil {
		t.Fatal(err)
	}
	if newCat, err = fbc.Load(newRef); err != nil {
		t.Fatal(err)
	}
	return oldCat, newCat
}

func openPair(t *testing.T, name string) (*diff.Report, report.Options) {
	t.Helper()
	oldRef, newRef := pairPaths(t, name)
	oldSide, newSide, err := input.OpenPair(context.Background(), oldRef, newRef, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return diff.CompareWith(oldSide, newSide, v0Only), report.Options{Old: oldSide, New: newSide}
}

func allPairs(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, kind := range []string{"fbc", "sqlite"} {
		entries, err := os.ReadDir(filepath.Join(diffPairs, kind))
		if err != nil {
			t.Skipf("diff pairs not available (%s): %v", diffPairs, err)
		}
		for _, e := range entries {
			names = append(names, kind+"/"+e.Name())
		}
	}
	return names
}

func render(t *testing.T, r *diff.Report, opts report.Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, r, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// tableSeverities reads the SEVERITY column of a rendered table, row by row.
func tableSeverities(table string) []string {
	var out []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "│")
		if len(cells) > 2 {
			if s := strings.TrimSpace(cells[1]); s != "" && s != "SEVERITY" {
				out = append(out, s)
			}
		}
	}
	return out
}

// On infrawatch the stranded bundle was row 13 of 13 of its package: now the verdict comes first
// and both breaking findings lead the table.
func TestTableVerdictFirstWorstFirst(t *testing.T) {
	r, opts := openPair(t, "sqlite/infrawatch-new-default-channel")
	table := render(t, r, opts)
	if !strings.HasPrefix(table, "olmcat diff: BREAKING — 2 breaking, 5 warnings, 17 info in 2 packages") {
		t.Errorf("first line:\n%s", table)
	}
	sev := tableSeverities(table)
	if len(sev) != 24 || sev[0] != "breaking" || sev[1] != "breaking" {
		t.Fatalf("severities %v", sev)
	}
	rank := map[string]int{"breaking": 3, "warning": 2, "info": 1}
	for i := 1; i < len(sev); i++ {
		if rank[sev[i]] > rank[sev[i-1]] {
			t.Errorf("row %d (%s) after a %s row", i+1, sev[i], sev[i-1])
		}
	}
	for _, want := range []string{"stranded", "can no longer upgrade to the head", "before, it was the head itself",
		"package smart-gateway-operator", "head moved back from"} {
		if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(table, "│", " ")), " "), want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

func TestTableFitsWidth(t *testing.T) {
	for _, name := range allPairs(t) {
		r, opts := openPair(t, name)
		for _, width := range []int{0, 100, 60} {
			opts.Width = width
			limit := width
			if width == 0 {
				limit = report.DefaultWidth
			}
			for i, line := range strings.Split(render(t, r, opts), "\n") {
				// At 60 the verdict's paths are longer than the line; only the table must fit.
				table := strings.ContainsAny(line, "│┌├└")
				if n := utf8.RuneCountInString(line); n > limit && (table || width != 60) {
					t.Errorf("%s at width %d: line %d has %d runes: %s", name, width, i+1, n, line)
				}
			}
		}
	}
}

func TestTableColour(t *testing.T) {
	r, opts := openPair(t, "fbc/sailoperator-v4.18-prune-channel")
	plain := render(t, r, opts)
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("ANSI codes without colour:\n%q", plain)
	}
	opts.Color = true
	coloured := render(t, r, opts)
	if !strings.Contains(coloured, "\x1b[1;31mBREAKING\x1b[0m") || !strings.Contains(coloured, "\x1b[1;31mbreaking\x1b[0m") ||
		!strings.Contains(coloured, "\x1b[36minfo\x1b[0m") {
		t.Errorf("no severity colours:\n%q", coloured)
	}
	if regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(coloured, "") != plain {
		t.Errorf("colour changed more than colours:\n%s\n%s", coloured, plain)
	}
}

func TestVerdictWithoutChanges(t *testing.T) {
	r, opts := openPair(t, "fbc/hive-operator-v4.18-consecutive")
	same := diff.Compare(opts.Old, opts.Old)
	if got := strings.SplitN(render(t, same, report.Options{}), "\n", 2)[0]; !strings.HasPrefix(got, "olmcat diff: NO CHANGES — the catalogs are the same (1 package compared)") {
		t.Errorf("unchanged: %q", got)
	}
	if got := report.Verdict(r); got != "OK" {
		t.Errorf("info only: verdict %q", got)
	}
}
