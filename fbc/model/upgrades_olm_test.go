package model

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The channels the issue "say what OLM will really do" names, rebuilt in testdata from
// community-operators-prod (README.md there says what is real and what is a placeholder). The
// expected offers are what OLM v0's resolver computes (getSubscriptionVariables: the channel order
// filtered by replaces/skips/skipRange of the installed CSV, with no exception for the installed CSV
// itself; the solver prefers the first).

const debezium = "debezium-operator.v"

// TestUpgradeGraphUnboundedSkipRangeOffersDowngrade: debezium-operator debezium-2.7.x. The head
// 2.7.3-final has no skipRange, 2.7.0-final has >2.6.1-final and the 2.6.x have >2.5.3-final, which
// all cover 2.7.3-final: OLM offers the head's users three downgrades and takes 2.7.0-final, whose
// first offer is the head again.
func TestUpgradeGraphUnboundedSkipRangeOffersDowngrade(t *testing.T) {
	dir := filepath.Join("testdata", "debezium", "new")
	ch := loadChannel(t, dir, "debezium-operator", "debezium-2.7.x")
	g := NewUpgradeGraph(ch)
	head := debezium + "2.7.3-final"
	if g.Head() != head {
		t.Fatalf("head = %s, want %s", g.Head(), head)
	}
	want := []string{"2.7.0-final", "2.6.1-final", "2.6.0-final"}
	if got := trimmed(debezium, g.Successors(head, EntryVersion(ch.Entries[head]))); !reflect.DeepEqual(got, want) {
		t.Errorf("the head's users are offered %v, want %v (OLM's order, downgrades included)", got, want)
	}
	low := debezium + "2.7.0-final"
	// 2.7.0-final's own range covers it: OLM offers it to itself, after the head that replaces it
	if got := trimmed(debezium, g.Successors(low, EntryVersion(ch.Entries[low]))); !reflect.DeepEqual(got, []string{"2.7.3-final", "2.7.0-final", "2.6.1-final", "2.6.0-final"}) {
		t.Errorf("2.7.0-final's users are offered %v", got)
	}
	if next := g.Next(low, EntryVersion(ch.Entries[low])); next != head {
		t.Errorf("from 2.7.0-final OLM takes %q, want the head", next)
	}

	issues := validateDir(t, dir, Options{})
	got := map[string]*Issue{}
	for _, i := range issues {
		if i.Rule == "downgrade-offered" {
			got[strings.TrimPrefix(i.Bundle, debezium)] = i
		}
	}
	if len(got) != 3 || got["2.7.3-final"] == nil || got["2.7.0-final"] == nil || got["2.6.1-final"] == nil {
		t.Fatalf("downgrade-offered for %v, want 2.7.3-final, 2.7.0-final and 2.6.1-final:\n%v", keys(got), issues)
	}
	h := got["2.7.3-final"]
	for _, part := range []string{`skipRange ">2.6.1-final"`, `skipRange ">2.5.3-final"`, "moves them down to \"" + low + "\"", "endless flip"} {
		if !strings.Contains(h.Message, part) {
			t.Errorf("head's warning lacks %q: %s", part, h.Message)
		}
	}
	if h.Severity != Warning || h.File == "" || h.Line == 0 || h.Hint == "" || h.Channel != "debezium-2.7.x" {
		t.Errorf("head's warning is not a located warning with a fix: %+v", h)
	}
	// 2.7.0-final's users are offered downgrades too, but the head comes first: OLM takes it
	if m := got["2.7.0-final"].Message; strings.Contains(m, "moves them down") {
		t.Errorf("2.7.0-final's users are said to be moved down: %s", m)
	}
	for _, i := range validateDir(t, dir, Options{Strict: true}) {
		if i.Rule == "downgrade-offered" && i.Severity != Error {
			t.Errorf("with Strict, downgrade-offered is %s", i.Severity)
		}
	}
	// before 2.7.3-final the head was 2.7.0-final: its own range covers it and comes first, so its
	// users are offered downgrades that OLM never takes
	for _, i := range validateDir(t, filepath.Join("testdata", "debezium", "old"), Options{}) {
		if i.Rule == "downgrade-offered" && strings.Contains(i.Message, "moves them down") {
			t.Errorf("old side: %s", i.Message)
		}
	}
}

// TestUpgradeGraphSelfCoveringSkipRange: machine-deletion-remediation's head has skipRange
// >=0.0.1, which covers its own version: OLM offers the head to its own users, first, and so keeps
// them where they are.
func TestUpgradeGraphSelfCoveringSkipRange(t *testing.T) {
	dir := filepath.Join("testdata", "machine-deletion-remediation", "catalog")
	ch := loadChannel(t, dir, "machine-deletion-remediation", "stable")
	g := NewUpgradeGraph(ch)
	const p = "machine-deletion-remediation.v"
	head := p + "0.7.0"
	if got := g.Successors(head, EntryVersion(ch.Entries[head])); !reflect.DeepEqual(got, []string{head}) {
		t.Errorf("the head's users are offered %v, want the head itself", got)
	}
	if next := g.Next(head, EntryVersion(ch.Entries[head])); next != "" {
		t.Errorf("OLM keeps the head's users, but Next = %q", next)
	}
	if d := g.Destination(p+"0.5.0", EntryVersion(ch.Entries[p+"0.5.0"])); d != (Destination{Hops: 1, End: head, ReachesHead: true}) {
		t.Errorf("0.5.0: %+v, want the head in 1 upgrade (its range covers 0.5.0)", d)
	}
	for _, i := range validateDir(t, dir, Options{}) {
		t.Errorf("unexpected issue: %v", i)
	}
}

// TestRequirementNotInCatalog: app.v2.0.0 requires package dep >=2.0.0 (the catalog has dep 1.2.0)
// and the API example.com/v1 Gadget (nothing provides it) besides Widget, which dep provides.
func TestRequirementNotInCatalog(t *testing.T) {
	for _, strict := range []bool{false, true} {
		issues := validateDir(t, filepath.Join("testdata", "requirements", "new"), Options{Strict: strict})
		var found []*Issue
		for _, i := range issues {
			if i.Rule == "requirement-not-in-catalog" {
				found = append(found, i)
			}
		}
		if len(found) != 1 || found[0].Bundle != "app.v2.0.0" {
			t.Fatalf("strict=%v: requirement-not-in-catalog issues %v, want one for app.v2.0.0", strict, found)
		}
		i := found[0]
		if i.Severity != Info || i.Line == 0 || i.Hint == "" {
			t.Errorf("strict=%v: not a located info with a fix: %+v", strict, i)
		}
		if !strings.Contains(i.Message, `API example.com/v1, Kind=Gadget`) || !strings.Contains(i.Message, `package "dep" in range ">=2.0.0"`) || strings.Contains(i.Message, "Widget") {
			t.Errorf("message names the wrong requirements: %s", i.Message)
		}
		if r := NewReport(issues); !r.Passed || r.Info != 1 {
			t.Errorf("strict=%v: report passed=%v info=%d, want passed with 1 info", strict, r.Passed, r.Info)
		}
	}
	for _, i := range validateDir(t, filepath.Join("testdata", "requirements", "old"), Options{}) {
		t.Errorf("old side: unexpected issue %v", i)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
