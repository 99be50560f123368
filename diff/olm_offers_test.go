package diff_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// fixture loads one of fbc/model's rebuilt channels (see the README.md beside them).
func fixture(t *testing.T, rel string) *diff.Side {
	t.Helper()
	cat, err := fbc.Load(filepath.Join("..", "fbc", "model", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return side(rel, cat)
}

// TestDowngradeOfferedIntroducedAndFixed: adding debezium-operator 2.7.3-final under the older
// bundles' unbounded skipRanges gives its users downgrades, and OLM takes one (an endless flip):
// a warning introduced; taking 2.7.3-final out again fixes it. The upgrades section lists OLM's
// offers, the bundle itself included where its own skipRange covers it.
func TestDowngradeOfferedIntroducedAndFixed(t *testing.T) {
	const p = "debezium-operator.v"
	r := diff.Compare(fixture(t, "debezium/old"), fixture(t, "debezium/new"))
	f := findingOf(t, r, diff.ProblemIntroduced, "debezium-2.7.x", p+"2.7.3-final")
	if f.Field != "downgrade-offered" || f.Severity != diff.Warning || !strings.Contains(f.Message, "endless flip") {
		t.Errorf("introduced: %+v", f)
	}
	for _, g := range r.Findings {
		if g.Field == "downgrade-offered" && g.Bundle != p+"2.7.3-final" {
			t.Errorf("the warnings of the older bundles did not change, yet: %+v", g)
		}
	}
	u := upgradeOf(t, r, "debezium-2.7.x", p+"2.7.0-final")
	want := []string{p + "2.7.3-final", p + "2.7.0-final", p + "2.6.1-final", p + "2.6.0-final"}
	if d := cmp.Diff(want, u.New.Targets); d != "" {
		t.Errorf("2.7.0-final's offers (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want[1:], u.Old.Targets); d != "" {
		t.Errorf("2.7.0-final's offers as the old head, itself first (-want +got):\n%s", d)
	}

	if u.Old.Downgrade != "" || u.New.Downgrade != "" {
		t.Errorf("OLM takes no downgrade for 2.7.0-final's users: %+v", u)
	}

	back := diff.Compare(fixture(t, "debezium/new"), fixture(t, "debezium/old"))
	if f := findingOf(t, back, diff.ProblemFixed, "debezium-2.7.x", p+"2.7.3-final"); f.Field != "downgrade-offered" {
		t.Errorf("fixed: %+v", f)
	}
	// the head 2.7.3-final, gone from the new side: on the old side OLM moved its users down (and
	// back), on the new one down to the new head 2.7.0-final, as a rollback does
	if u := upgradeOf(t, back, "debezium-2.7.x", p+"2.7.3-final"); u.Old.Downgrade != p+"2.7.0-final" || !u.Old.ReachesHead ||
		u.New.Downgrade != p+"2.7.0-final" || u.New.Hops != 1 {
		t.Errorf("the old head's reach: %+v", u)
	}
}

// TestHeadRequirementNotInCatalog: app's new head 2.0.0 requires package dep >=2.0.0 and the API
// Gadget, which nothing in the new catalog provides (Widget, which dep provides, is fine).
func TestHeadRequirementNotInCatalog(t *testing.T) {
	r := diff.Compare(fixture(t, "requirements/old"), fixture(t, "requirements/new"))
	f := findingOf(t, r, diff.HeadRequirementUnmet, "stable", "app.v2.0.0")
	if f.Severity != diff.Warning || f.New != `API example.com/v1, Kind=Gadget and package "dep" in range ">=2.0.0"` {
		t.Errorf("finding: %+v", f)
	}
	// the same requirement, unmet on both sides, is no change
	same := diff.Compare(fixture(t, "requirements/new"), fixture(t, "requirements/new"))
	for _, g := range same.Findings {
		t.Errorf("unchanged catalog: %+v", g)
	}
	// the head going back to 1.0.0, whose requirements dep meets, is no such warning
	for _, g := range diff.Compare(fixture(t, "requirements/new"), fixture(t, "requirements/old")).Findings {
		if g.Kind == diff.HeadRequirementUnmet {
			t.Errorf("reverse: %+v", g)
		}
	}
}
