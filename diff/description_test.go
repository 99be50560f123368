package diff_test

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// kairosDescription edits the description of kairos-operator (conformance's v4.12 subset, a
// Markdown text of some 3 kB) and returns the one finding the change is.
func kairosDescription(t *testing.T, edit func(string) string) diff.Finding {
	t.Helper()
	oldCat, newCat := loadCatalog(t, subset412), loadCatalog(t, subset412)
	var p *fbc.Package
	for i := range newCat.Packages {
		if newCat.Packages[i].Name == "kairos-operator" {
			p = &newCat.Packages[i]
		}
	}
	if p == nil || len(p.Description) < 1000 {
		t.Fatal("kairos-operator has no long description any more")
	}
	p.Description = edit(p.Description)
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	assertFindings(t, r, "info description-changed")
	return r.Findings[0]
}

// A description removed, added or changed says which, quoting the text where it changed.
func TestDescriptionChangeInWords(t *testing.T) {
	const start = `"## Kairos Operator — Intelligent Resource Management Kairos…"`
	f := kairosDescription(t, func(string) string { return "" })
	if want := "package description removed (it was " + start + ")"; f.Message != want {
		t.Errorf("removed:\n got %s\nwant %s", f.Message, want)
	}
	if f.New != "" || !strings.Contains(f.Old, "bytes, sha256:") {
		t.Errorf("removed: values %q -> %q", f.Old, f.New)
	}
	// the same, the other way round
	oldCat, newCat := loadCatalog(t, subset412), loadCatalog(t, subset412)
	for i := range oldCat.Packages {
		oldCat.Packages[i].Description = ""
	}
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	if f := findingOf(t, r, diff.DescriptionChanged, "", ""); f.Message != "package description added: "+start {
		t.Errorf("added: %s", f.Message)
	}
	// Changed far into the text (past what the values keep): the quotes show the difference.
	f = kairosDescription(t, func(s string) string { return strings.Replace(s, "ArgoCD-safe (SSA)", "GitOps-safe (SSA)", 1) })
	if want := `package description changed from "…----|-----|-----| | ArgoCD-safe (SSA) | Yes | No | N/A | |…" to "…----|-----|-----| | GitOps-safe (SSA) | Yes | No | N/A | |…"`; f.Message != want {
		t.Errorf("changed far in:\n got %s\nwant %s", f.Message, want)
	}
	// Changed at the start: quoted from the start.
	f = kairosDescription(t, func(s string) string { return strings.Replace(s, "Intelligent", "Smart", 1) })
	if want := `package description changed from "## Kairos Operator — Intelligent Resource Management Kairos…" to "## Kairos Operator — Smart Resource Management Kairos is a…"`; f.Message != want {
		t.Errorf("changed at the start:\n got %s\nwant %s", f.Message, want)
	}
	// Only re-wrapped: no words changed.
	f = kairosDescription(t, func(s string) string { return strings.Replace(s, "workload\nmetrics", "workload metrics\n", 1) })
	if f.Message != "package description changed only in white space" {
		t.Errorf("re-wrapped: %s", f.Message)
	}
}
