package diff_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/fbc"
)

const sharedDir = "../../shared"

// sharedPath returns a path under ../shared, skipping the test when the corpus is not there.
func sharedPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("reference corpus not available (%s): %v; run the tests from a checkout with ../shared beside it", p, err)
	}
	return p
}

// loadCatalog loads a conformance FBC catalog that must load cleanly.
func loadCatalog(t testing.TB, rel string) *fbc.Catalog {
	t.Helper()
	cat, err := fbc.Load(sharedPath(t, rel))
	if err != nil {
		t.Fatalf("load %s: %v", rel, err)
	}
	return cat
}

func side(name string, cat *fbc.Catalog) *diff.Side {
	return &diff.Side{Source: name, Format: "fbc", Catalog: cat}
}

func openSide(t testing.TB, path string) *diff.Side {
	t.Helper()
	s, err := input.Open(context.Background(), path, input.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return s
}

// openPair opens two sides the way olmcat diff does (at once, sharing what they hold in common).
func openPair(t testing.TB, oldPath, newPath string) (*diff.Side, *diff.Side) {
	t.Helper()
	o, n, err := input.OpenPair(context.Background(), oldPath, newPath, input.Options{})
	if err != nil {
		t.Fatalf("open %s, %s: %v", oldPath, newPath, err)
	}
	return o, n
}

// brief writes a finding as "severity kind [channel] [bundle] [field]" for compact assertions.
func brief(f diff.Finding) string {
	parts := []string{string(f.Severity), string(f.Kind)}
	if f.Channel != "" {
		parts = append(parts, "ch="+f.Channel)
	}
	if f.Bundle != "" {
		parts = append(parts, "b="+f.Bundle)
	}
	if f.Field != "" {
		parts = append(parts, "f="+f.Field)
	}
	return strings.Join(parts, " ")
}

func briefs(r *diff.Report) []string {
	out := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		out = append(out, brief(f))
	}
	return out
}

// v0Briefs are the briefs of the findings that hold for OLM v0 (olm v0 or both, and those of no
// generation): what the fixtures' expected lists were written from. OLM v1's own findings are held
// to fbc/resolve's answers by the TestV1 tests (v1_test.go).
func v0Briefs(r *diff.Report) []string {
	out := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		if f.Generations() != "v1" {
			out = append(out, brief(f))
		}
	}
	return out
}

// assertFindings checks the complete list of findings that hold for OLM v0, in report order.
func assertFindings(t *testing.T, r *diff.Report, want ...string) {
	t.Helper()
	if d := cmp.Diff(want, v0Briefs(r)); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// findingOf returns the one finding of that kind for that bundle (or channel when bundle is "").
func findingOf(t *testing.T, r *diff.Report, kind diff.Kind, channel, bundle string) diff.Finding {
	t.Helper()
	var found []diff.Finding
	for _, f := range r.Findings {
		if f.Kind == kind && f.Channel == channel && f.Bundle == bundle && (f.Generations() != "v1" || strings.HasPrefix(string(kind), "v1-") || strings.HasPrefix(string(kind), "crd-")) {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s finding for channel %q bundle %q, got %d: %v", kind, channel, bundle, len(found), briefs(r))
	}
	return found[0]
}

func upgradeOf(t *testing.T, r *diff.Report, channel, bundle string) diff.Upgrade {
	t.Helper()
	for _, u := range r.Upgrades {
		if u.Channel == channel && u.Bundle == bundle {
			return u
		}
	}
	t.Fatalf("no upgrade entry for %s in channel %s", bundle, channel)
	return diff.Upgrade{}
}

// removeBundle deletes a bundle blob and its entries in every channel of its package.
func removeBundle(cat *fbc.Catalog, pkg, name string) {
	bundles := cat.Bundles[:0]
	for _, b := range cat.Bundles {
		if b.Package != pkg || b.Name != name {
			bundles = append(bundles, b)
		}
	}
	cat.Bundles = bundles
	for i := range cat.Channels {
		ch := &cat.Channels[i]
		if ch.Package != pkg {
			continue
		}
		entries := ch.Entries[:0]
		for _, e := range ch.Entries {
			if e.Name != name {
				entries = append(entries, e)
			}
		}
		ch.Entries = entries
	}
}

// editEntry changes one channel entry in place.
func editEntry(t *testing.T, cat *fbc.Catalog, pkg, channel, name string, edit func(*fbc.ChannelEntry)) {
	t.Helper()
	for i := range cat.Channels {
		ch := &cat.Channels[i]
		if ch.Package != pkg || ch.Name != channel {
			continue
		}
		for j := range ch.Entries {
			if ch.Entries[j].Name == name {
				edit(&ch.Entries[j])
				return
			}
		}
	}
	t.Fatalf("no entry %s in %s/%s", name, pkg, channel)
}

// bundleOf returns a pointer to a bundle blob of the catalog.
func bundleOf(t *testing.T, cat *fbc.Catalog, pkg, name string) *fbc.Bundle {
	t.Helper()
	for i := range cat.Bundles {
		if cat.Bundles[i].Package == pkg && cat.Bundles[i].Name == name {
			return &cat.Bundles[i]
		}
	}
	t.Fatalf("no bundle %s/%s", pkg, name)
	return nil
}

func summary(r *diff.Report) string {
	return fmt.Sprintf("%d breaking, %d warning, %d info", r.Summary.Breaking, r.Summary.Warning, r.Summary.Info)
}

// v0Summary counts the findings that hold for OLM v0, as summary does.
func v0Summary(r *diff.Report) string {
	var c [3]int
	for _, f := range r.Findings {
		if f.Generations() != "v1" {
			c[3-f.Severity.Rank()]++
		}
	}
	return fmt.Sprintf("%d breaking, %d warning, %d info", c[0], c[1], c[2])
}

// v1Counted counts the OLM v1 findings of a package at a severity.
func v1Counted(r *diff.Report, pkg string, s diff.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Generations() == "v1" && f.Package == pkg && f.Severity == s {
			n++
		}
	}
	return n
}
