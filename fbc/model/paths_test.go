package model

import (
	"reflect"
	"testing"

	"github.com/blang/semver/v4"
)

// a.1 <- a.2 (replaces) <- a.3 (replaces a.2, skips a.1, skipRange <1.3.0); a.0 is a bundle no
// longer in the channel.
func pathsChannel() *Channel {
	c := &Channel{Name: "stable", Entries: map[string]*Entry{}}
	add := func(name, version, replaces, skipRange string, skips ...string) {
		b := &Bundle{Name: name, VersionString: version, Version: semver.MustParse(version)}
		c.Entries[name] = &Entry{Name: name, Replaces: replaces, Skips: skips, SkipRange: skipRange, Bundle: b}
	}
	add("a.1", "1.1.0", "", "")
	add("a.2", "1.2.0", "a.1", "")
	add("a.3", "1.3.0", "a.2", "<1.3.0", "a.1")
	return c
}

func TestUpgradeGraph(t *testing.T) {
	g := NewUpgradeGraph(pathsChannel())
	v := semver.MustParse("1.0.0")
	if got := g.Successors("a.0", &v); !reflect.DeepEqual(got, []string{"a.3"}) {
		t.Errorf("a removed bundle at 1.0.0 upgrades through the skipRange only: %v", got)
	}
	if got := g.Successors("a.0", nil); len(got) != 0 {
		t.Errorf("without a version nothing matches: %v", got)
	}
	if got := g.Successors("a.1", EntryVersion(g.channel.Entries["a.1"])); !reflect.DeepEqual(got, []string{"a.2", "a.3"}) {
		t.Errorf("a.1 successors: %v", got)
	}
	if got := g.DistancesTo("a.3"); !reflect.DeepEqual(got, map[string]int{"a.3": 0, "a.2": 1, "a.1": 1}) {
		t.Errorf("distances: %v", got)
	}
	if got := g.ReachableFrom([]string{"a.2"}); !reflect.DeepEqual(got, map[string]int{"a.2": 1, "a.3": 2}) {
		t.Errorf("reachable from a.2: %v", got)
	}
}
