package report_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/report"
)

// squash is text without whitespace, to look for values a cell wrapped.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// tableCells reads a rendered table back into its cells, each cell's lines joined and squashed.
func tableCells(table string) []string {
	var cells []string
	var row []string
	flush := func() {
		for _, c := range row {
			cells = append(cells, squash(c))
		}
		row = nil
	}
	for _, line := range strings.Split(table, "\n") {
		parts := strings.Split(line, "│")
		if len(parts) < 3 {
			flush()
			continue
		}
		parts = parts[1 : len(parts)-1]
		if strings.TrimSpace(parts[0]) != "" {
			flush()
		}
		if row == nil {
			row = make([]string, len(parts))
		}
		for i, p := range parts {
			row[i] += " " + p
		}
	}
	flush()
	return cells
}

// Nothing a reviewer acts on is ever cut: on every real pair, at 80 and 60 columns, every image
// reference a finding names (bundle and related images, with tags or digests) is whole in one cell.
func TestTableKeepsImagesWhole(t *testing.T) {
	for _, name := range allPairs(t) {
		r, opts := openPair(t, name)
		for _, width := range []int{80, 60} {
			opts.Width = width
			cells := strings.Join(tableCells(render(t, r, opts)), "\x00")
			for _, f := range r.Findings {
				for _, v := range append(strings.Fields(f.Message), f.Old, f.New) {
					v = strings.Trim(v, "(),;")
					if strings.Count(v, "/") < 1 || !strings.ContainsAny(v, ":@") || strings.ContainsAny(v, " ") {
						continue // not an image reference
					}
					if !strings.Contains(cells, squash(v)) {
						t.Errorf("%s at %d columns: %s %s: %q is not whole in any cell", name, width, f.Kind, f.Bundle, v)
					}
				}
			}
		}
	}
}

// The kubernaut warnings carry a fix and a file:line; at 80 columns both are there, whole.
func TestTableKeepsFixAndLocation(t *testing.T) {
	dir := "../../fbc/model/testdata/kubernaut"
	oldSide, newSide, err := input.OpenPair(context.Background(), filepath.Join(dir, "old"), filepath.Join(dir, "new"), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := diff.CompareWith(oldSide, newSide, v0Only)
	table := strings.Join(tableCells(render(t, r, report.Options{Width: 80})), "\x00")
	for _, f := range r.Findings {
		if f.Category != diff.CategoryValidation {
			continue
		}
		i := strings.Index(f.Message, "(fix: ")
		if i < 0 || !strings.Contains(table, squash(f.Message[i:])) || !strings.Contains(table, squash(f.New)) {
			t.Errorf("%s %s: fix or location missing at 80 columns:\n%s", f.Kind, f.Bundle, render(t, r, report.Options{Width: 80}))
		}
	}
}

// tableKinds reads the KIND column, one entry per row (a row's kinds joined by spaces).
func tableKinds(table string) []string {
	var out []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "│")
		if len(cells) < 3 || strings.TrimSpace(cells[2]) == "KIND" {
			continue
		}
		kind := strings.TrimSpace(cells[2])
		switch {
		case strings.TrimSpace(cells[1]) != "":
			out = append(out, kind)
		case kind != "" && len(out) > 0:
			out[len(out)-1] += " " + kind
		}
	}
	return out
}

// victoriametrics: three releases (each a bundle, its entry in beta, the last one the new head) and
// the same representation change to two bundles: 4 rows instead of 9 findings.
func TestTableGroupsReleasesAndSameChanges(t *testing.T) {
	r, opts := openPair(t, "fbc/victoriametrics-v4.18-bundleobject-to-csvmetadata")
	table := render(t, r, opts)
	want := []string{"crd-upgrade-unchecked", "bundle-representation-changed ×2", "bundle-added entry-added", "bundle-added entry-added",
		"bundle-added entry-added head-changed"}
	if got := tableKinds(table); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %q, want %q\n%s", got, want, table)
	}
	cells := strings.Join(tableCells(table), "\x00")
	for _, s := range []string{"2 bundles: victoriametrics-operator.v0.52.0, victoriametrics-operator.v0.53.0",
		"added (version 0.56.0, image quay.io/community-operator-pipeline-prod/victoriametrics-operator:0.56.0); in channel beta (replaces victoriametrics-operator.v0.55.0), the new head after victoriametrics-operator.v0.53.0"} {
		if !strings.Contains(cells, squash(s)) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	if len(r.Findings) != 10 { // 9 and the catalog-wide crd-upgrade-unchecked
		t.Errorf("the report itself keeps every finding: %d", len(r.Findings))
	}
}

// One bundle whose replaces changed the same way in four channels is one row naming the channels.
func TestTableGroupsOneChangeInSeveralChannels(t *testing.T) {
	r := &diff.Report{}
	for _, ch := range []string{"stable", "stable-v1.10", "stable-v1.11", "fast"} {
		f := diff.Finding{Kind: diff.ReplacesChanged, Category: diff.CategoryCatalog, Severity: diff.Info, Package: "dell-csm-operator",
			Channel: ch, Bundle: "dell-csm-operator.v1.11.0", Old: "dell-csm-operator.v1.10.1", New: "dell-csm-operator.v1.10.2", Message: "replaces changed"}
		r.Findings = append(r.Findings, f)
	}
	r.Summary.Info = 4
	var buf bytes.Buffer
	if err := report.Table(&buf, r); err != nil {
		t.Fatal(err)
	}
	cells := strings.Join(tableCells(buf.String()), "\x00")
	if got := tableKinds(buf.String()); !reflect.DeepEqual(got, []string{"replaces-changed ×4"}) ||
		!strings.Contains(cells, squash("4 channels: stable, stable-v1.10, stable-v1.11, fast")) ||
		!strings.Contains(cells, squash("replaces changed from dell-csm-operator.v1.10.1 to dell-csm-operator.v1.10.2")) {
		t.Errorf("rows %q:\n%s", got, buf.String())
	}
}

func TestTableMinSeverity(t *testing.T) {
	r, opts := openPair(t, "sqlite/infrawatch-new-default-channel")
	for _, c := range []struct {
		min    diff.Severity
		rows   int
		hidden string
	}{{diff.Warning, 7, "17 info"}, {diff.Breaking, 2, "5 warnings, 17 info"}} {
		opts.MinSeverity = c.min
		table := render(t, r, opts)
		if n := len(tableSeverities(table)); n != c.rows {
			t.Errorf("--min-severity %s: %d rows, want %d", c.min, n, c.rows)
		}
		if want := fmt.Sprintf("not shown (below --min-severity %s): %s", c.min, c.hidden); !strings.Contains(table, want) {
			t.Errorf("--min-severity %s: no %q:\n%s", c.min, want, table)
		}
		if !strings.HasPrefix(table, "olmcat diff: BREAKING — 2 breaking, 5 warnings, 17 info") {
			t.Errorf("the verdict counts every finding:\n%s", table)
		}
	}
}

// --stat: every column starts at the same place on every line.
func TestStatColumnsAligned(t *testing.T) {
	for _, name := range allPairs(t) {
		r, _ := openPair(t, name)
		var buf bytes.Buffer
		if err := report.Stat(&buf, r); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		var first []int
		for _, line := range lines[:len(lines)-1] {
			var bars []int
			for i, r := range []rune(line) {
				if r == '|' {
					bars = append(bars, i)
				}
			}
			if first == nil {
				first = bars
			} else if !reflect.DeepEqual(bars, first) {
				t.Errorf("%s: columns at %v and %v:\n%s", name, first, bars, buf.String())
			}
		}
	}
}
