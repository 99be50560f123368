package model

import (
	"reflect"
	"testing"

	"github.com/blang/semver/v4"
)

func channelOf(entries ...Entry) *Channel {
	c := &Channel{Name: "stable", Entries: map[string]*Entry{}}
	for i := range entries {
		e := entries[i]
		c.Entries[e.Name] = &e
	}
	return c
}

func withVersion(e Entry, v string) Entry {
	e.Bundle = &Bundle{Name: e.Name, VersionString: v, Version: semver.MustParse(v)}
	return e
}

func TestHeadAndStranded(t *testing.T) {
	// the invalid/stranded-bundle conformance case: v0.9.0 is only reachable through a skipped bundle
	c := channelOf(
		Entry{Name: "v0.9.0"},
		Entry{Name: "v1.0.0", Replaces: "v0.9.0"},
		Entry{Name: "v1.1.0"},
		Entry{Name: "v1.2.0", Replaces: "v1.1.0", Skips: []string{"v1.0.0"}},
	)
	head, err := c.Head()
	if err != nil || head.Name != "v1.2.0" {
		t.Fatalf("Head() = %v, %v; want v1.2.0", head, err)
	}
	if got := c.Stranded("v1.2.0"); !reflect.DeepEqual(got, []string{"v0.9.0"}) {
		t.Errorf("Stranded = %v, want [v0.9.0]", got)
	}
	two := channelOf(Entry{Name: "a"}, Entry{Name: "b"})
	if _, err := two.Head(); err == nil || err.Error() != "multiple channel heads found in graph: a, b" {
		t.Errorf("two heads: %v", err)
	}
}

func TestReplacesChainCycle(t *testing.T) {
	c := channelOf(
		Entry{Name: "v1.0.0", Replaces: "v1.1.0"},
		Entry{Name: "v1.1.0", Replaces: "v1.2.0"},
		Entry{Name: "v1.2.0", Replaces: "v1.0.0"},
		Entry{Name: "v2.0.0", Replaces: "v1.2.0"},
	)
	chain, cycle := c.ReplacesChain("v2.0.0")
	if !reflect.DeepEqual(chain, []string{"v2.0.0", "v1.2.0", "v1.0.0", "v1.1.0"}) {
		t.Errorf("chain = %v", chain)
	}
	if !reflect.DeepEqual(cycle, []string{"v1.2.0", "v1.0.0", "v1.1.0", "v1.2.0"}) {
		t.Errorf("cycle = %v", cycle)
	}
	if got := c.Cycles(); !reflect.DeepEqual(got, [][]string{{"v1.0.0", "v1.1.0", "v1.2.0", "v1.0.0"}}) {
		t.Errorf("Cycles = %v", got)
	}
}

func TestCyclesThroughSkips(t *testing.T) {
	c := channelOf(
		Entry{Name: "a", Replaces: "b"},
		Entry{Name: "b", Skips: []string{"a"}},
		Entry{Name: "c", Replaces: "a"},
	)
	if got := c.Cycles(); !reflect.DeepEqual(got, [][]string{{"a", "b", "a"}}) {
		t.Errorf("Cycles = %v", got)
	}
	if got := channelOf(Entry{Name: "a"}, Entry{Name: "b", Replaces: "a"}).Cycles(); len(got) != 0 {
		t.Errorf("acyclic graph reported cycles %v", got)
	}
}
