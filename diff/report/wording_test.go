package report_test

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// The Markdown table's channels column counts the channels whose head moved: a release is no
// "unchanged" channel.
func TestMarkdownCountsHeadMoves(t *testing.T) {
	for pair, row := range map[string]string{
		"fbc/hive-operator-v4.18-consecutive":   "| hive-operator | changed | 0 | 0 | 3 | 1 head moved | 1 added |",
		"fbc/project-quay-v4.20-consecutive":    "| project-quay | changed | 0 | 0 | 3 | 1 head moved | 1 added |",
		"fbc/sailoperator-v4.18-prune-channel":  "| sailoperator | changed | **1** | 0 | 1 | 1 removed | 1 removed |",
		"sqlite/infrawatch-new-default-channel": "| smart-gateway-operator | changed | **1** | 3 | 10 | 1 added, 1 head moved | 2 changed |",
		"sqlite/cluster-assessment-add-channel": "| cluster-assessment-operator | changed |",
		"sqlite/host-operator-replace-bundle":   "| toolchain-host-operator | changed |",
	} {
		r, opts := openPair(t, pair)
		md := markdown(t, r, opts)
		if !strings.Contains(md, row) {
			t.Errorf("%s: no row %q in\n%s", pair, row, md[:min(len(md), 1500)])
		}
		for _, p := range r.Packages {
			if p.HeadsMoved > p.ChannelsChanged {
				t.Errorf("%s: %s: %d heads moved of %d channels changed", pair, p.Name, p.HeadsMoved, p.ChannelsChanged)
			}
			heads := 0
			for _, f := range r.Findings {
				if f.Package == p.Name && (f.Kind == diff.HeadChanged || f.Kind == diff.HeadMovedBackwards) {
					heads++
				}
			}
			if heads != p.HeadsMoved {
				t.Errorf("%s: %s: %d head findings, headsMoved %d", pair, p.Name, heads, p.HeadsMoved)
			}
		}
	}
}

// A description removed reads as removed, quoting the old text, in every format for people.
func TestDescriptionRemovedInWords(t *testing.T) {
	r := &diff.Report{SchemaVersion: diff.SchemaVersion, Findings: []diff.Finding{{
		Kind: diff.DescriptionChanged, Category: diff.CategoryCatalog, Severity: diff.Info, Package: "p",
		Old: "An operator.", Message: `package description removed (it was "An operator.")`}}}
	r.Summary.Info = 1
	for _, format := range []string{report.FormatTable, report.FormatMarkdown} {
		out := render(t, r, report.Options{Format: format, Width: 200})
		if !strings.Contains(out, `package description removed (it was "An operator.")`) || strings.Contains(out, "changed: An operator.") {
			t.Errorf("%s:\n%s", format, out)
		}
	}
}

// A value "changed" that one side does not have reads as added or removed, not as "changed: OLD".
func TestOneSidedChangeInWords(t *testing.T) {
	for _, c := range []struct {
		f    diff.Finding
		want string
	}{
		{diff.Finding{Kind: diff.CSVMetadataChanged, Field: "keywords", Old: `["a"]`, Message: "CSV metadata field keywords changed"},
			`CSV metadata field keywords removed (it was ["a"])`},
		{diff.Finding{Kind: diff.CSVMetadataChanged, Field: "keywords", New: `["a"]`, Message: "CSV metadata field keywords changed"},
			`CSV metadata field keywords added: ["a"]`},
		{diff.Finding{Kind: diff.UnknownFieldChanged, Field: "x", Old: "1", New: "2", Message: `olm.bundle field "x" changed`},
			`olm.bundle field "x" changed: from 1 to 2`},
	} {
		c.f.Category, c.f.Severity, c.f.Package, c.f.Bundle = diff.CategoryCatalog, diff.Info, "p", "p.v1"
		r := &diff.Report{SchemaVersion: diff.SchemaVersion, Findings: []diff.Finding{c.f}}
		r.Summary.Info = 1
		// A Markdown cell shows the text escaped (no [, ] or | of its own).
		want := textsafe.MarkdownCell(c.want)
		if out := render(t, r, report.Options{Format: report.FormatMarkdown}); !strings.Contains(out, want) {
			t.Errorf("%+v: no %q in\n%s", c.f, want, out)
		}
	}
}
