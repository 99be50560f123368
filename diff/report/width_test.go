package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc"
)

func widest(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}

// --stat fits 80 columns (and narrower widths), a package name too long for what is left cut.
func TestStatFitsWidth(t *testing.T) {
	oldSide, newSide := changedPair(t, 30)
	newSide.Catalog.Packages[3].Name = strings.Repeat("a-very-long-package-name-", 6)
	r := diff.Compare(oldSide, newSide)
	for _, width := range []int{0, 80, 72} {
		var buf bytes.Buffer
		if err := report.StatOptions(&buf, r, width); err != nil {
			t.Fatal(err)
		}
		want := width
		if want == 0 {
			want = report.StatWidth
		}
		if w := widest(buf.String()); w > want {
			t.Errorf("--stat at %d columns: a line of %d:\n%s", want, w, buf.String())
		}
		if !strings.Contains(buf.String(), "| added ") || !strings.Contains(buf.String(), "a-very-lon") || !strings.Contains(buf.String(), "… | added") {
			t.Errorf("--stat at %d columns: names not shown:\n%s", want, buf.String())
		}
	}
}

// elevenChannels is a package whose bundle p.v1.0.2 heads 11 channels (with), or which lacks it.
func elevenChannels(with bool) *fbc.Catalog {
	c := &fbc.Catalog{Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "p", DefaultChannel: "c0"}}}
	n := 2
	if with {
		n = 3
	}
	for ch := range 11 {
		entries := []fbc.ChannelEntry{{Name: "p.v1.0.0"}}
		for i := 1; i < n; i++ {
			entries = append(entries, fbc.ChannelEntry{Name: fmt.Sprintf("p.v1.0.%d", i), Replaces: fmt.Sprintf("p.v1.0.%d", i-1)})
		}
		c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Package: "p", Name: fmt.Sprintf("c%d", ch), Entries: entries})
	}
	for i := range n {
		c.Bundles = append(c.Bundles, fbc.Bundle{Schema: fbc.SchemaBundle, Package: "p", Name: fmt.Sprintf("p.v1.0.%d", i),
			Image: fmt.Sprintf("quay.io/x/p:%d", i), Properties: []fbc.Property{{Type: "olm.package",
				Value: json.RawMessage(fmt.Sprintf(`{"packageName":"p","version":"1.0.%d"}`, i))}}})
	}
	return c
}

// Removing a bundle from 11 channels is one row of the table, as adding it is.
func TestRemovalFromChannelsIsOneRow(t *testing.T) {
	with, without := &diff.Side{Source: "with", Catalog: elevenChannels(true)}, &diff.Side{Source: "without", Catalog: elevenChannels(false)}
	for _, tc := range []struct {
		old, new *diff.Side
		kind     string
	}{{without, with, "bundle-added"}, {with, without, "bundle-removed"}} {
		table := render(t, diff.CompareWith(tc.old, tc.new, v0Only), report.Options{Width: 100})
		// (adding the bundle adds upgrade edges, whose CRDs these manifest-less bundles do not
		// carry: one crd-upgrade-unchecked row more)
		if n := strings.Count(table, "│ info ") - strings.Count(table, "│ crd-upgrade-unchecked"); n != 1 {
			t.Errorf("%s: %d info rows, want one:\n%s", tc.kind, n, table)
		}
		if !strings.Contains(table, tc.kind) {
			t.Errorf("no %s row:\n%s", tc.kind, table)
		}
	}
	table := render(t, diff.Compare(with, without), report.Options{Width: 400})
	if !strings.Contains(table, "removed (version 1.0.2, image quay.io/x/p:2); from its 11 channels (replaces p.v1.0.1)") || !strings.Contains(table, "entry-removed") {
		t.Errorf("the removal row does not say what it holds:\n%s", table)
	}
	table = render(t, diff.Compare(without, with), report.Options{Width: 400})
	if !strings.Contains(table, "added (version 1.0.2, image quay.io/x/p:2); in its 11 channels (replaces p.v1.0.1), the new head after p.v1.0.1") {
		t.Errorf("the release row does not say its channels once:\n%s", table)
	}
}

// A name of 1 MiB is shown cut, with its length, in a table of a few lines, and the table takes
// as long as for a short name (wrap turned the rest of the name into runes for each line it cut:
// 364 s).
func TestTableLongNameCut(t *testing.T) {
	for _, n := range []int{64 << 10, 1 << 20} {
		r := longNameReport(n)
		for _, format := range []string{report.FormatTable, report.FormatMarkdown} {
			out := render(t, r, report.Options{Format: format, Width: 80})
			if lines := strings.Count(out, "\n"); lines > 120 || len(out) > 16<<10 {
				t.Errorf("%s, a name of %d bytes: %d lines, %d bytes", format, n, lines, len(out))
			}
			// The cut and its length (its digits may be broken over two lines of a cell); the name's
			// first KiB or so.
			if !strings.Contains(out, "bytes)") || !strings.Contains(out, "…") || strings.Count(out, "a") > 8<<10 {
				t.Errorf("%s: the name is not shown cut with its length:\n%.2000s", format, out)
			}
		}
	}
}

func longNameReport(n int) *diff.Report {
	name := "p.v1.0.1-" + strings.Repeat("a", n-9)
	return &diff.Report{Summary: diff.Counts{Breaking: 1}, Findings: []diff.Finding{{Kind: diff.Stranded, Severity: diff.Breaking,
		Package: "p", Channel: "stable", Bundle: name, Message: fmt.Sprintf("users of %q can no longer upgrade to the head p.v1.0.2; upgrades end at %s", name, name)}}}
}

func thousandsOf(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// The table's time is linear in a name's length: compare ns/op at 64 KiB and 1 MiB.
func BenchmarkTableLongName(b *testing.B) {
	for _, n := range []int{64 << 10, 256 << 10, 1 << 20} {
		r := longNameReport(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if err := report.TableOptions(&bytes.Buffer{}, r, report.Options{Width: 80}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
