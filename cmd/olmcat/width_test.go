package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func widestLine(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// inspect's tables follow $COLUMNS (the terminal's width) as diff's do; compat's report and diff
// --stat fit 80 columns.
func TestReviewOutputsFitWidth(t *testing.T) {
	for _, width := range []string{"80", "100", "132"} {
		t.Setenv("COLUMNS", width)
		for _, args := range [][]string{
			{"inspect", "packages", "../../fixtures/catalog"},
			{"inspect", "package", "../../fixtures/catalog", "operator-001"},
			{"inspect", "package", "../../fixtures/index.db", "operator-002"},
		} {
			out, code := runCommand(t, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, out)
			}
			if w := widestLine(out); w > map[string]int{"80": 80, "100": 100, "132": 132}[width] {
				t.Errorf("COLUMNS=%s %s: a line of %d columns:\n%s", width, strings.Join(args, " "), w, out)
			}
		}
	}
	t.Setenv("COLUMNS", "")
	db, migrated := compatCase(t, "kube-green-replaces")
	out, code := runCommand(t, "compat", db, migrated)
	if code != 0 || widestLine(out) > 80 || !strings.Contains(out, "GetLatestChannelEntriesThatProvide") {
		t.Errorf("compat: exit %d, a line of %d columns:\n%s", code, widestLine(out), out)
	}
	oldDir, newDir := "../../../shared/diffpairs/fbc/project-quay-v4.20-consecutive/old", "../../../shared/diffpairs/fbc/project-quay-v4.20-consecutive/new"
	out, _ = runCommand(t, "diff", oldDir, newDir, "--stat")
	if widestLine(out) > 80 || !strings.Contains(out, "project-quay") {
		t.Errorf("diff --stat: a line of %d columns:\n%s", widestLine(out), out)
	}
}
