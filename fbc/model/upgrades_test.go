package model

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
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

func TestUpgradeGraphOffers(t *testing.T) {
	g := NewUpgradeGraph(pathsChannel())
	if got := g.Order(); !reflect.DeepEqual(got, []string{"a.3", "a.2"}) {
		t.Errorf("order (a.1 is skipped, never offered) = %v", got)
	}
	v := semver.MustParse("1.0.0")
	if got := g.Successors("a.0", &v); !reflect.DeepEqual(got, []string{"a.3"}) {
		t.Errorf("a removed bundle at 1.0.0 upgrades through the skipRange only: %v", got)
	}
	if got := g.Successors("a.0", nil); len(got) != 0 {
		t.Errorf("without a version nothing matches: %v", got)
	}
	if got := g.Successors("a.1", EntryVersion(g.channel.Entries["a.1"])); !reflect.DeepEqual(got, []string{"a.3", "a.2"}) {
		t.Errorf("a.1 is offered a.3 and a.2, nearest the head first: %v", got)
	}
	if d := g.Destination("a.1", EntryVersion(g.channel.Entries["a.1"])); d != (Destination{Hops: 1, End: "a.3", ReachesHead: true}) {
		t.Errorf("OLM takes a.1 straight to the head: %+v", d)
	}
	if d := g.Destination("a.3", nil); d != (Destination{End: "a.3", ReachesHead: true}) {
		t.Errorf("the head reaches itself: %+v", d)
	}
	if d := g.Destination("a.0", &v); d != (Destination{Hops: 1, End: "a.3", ReachesHead: true}) {
		t.Errorf("a removed bundle: %+v", d)
	}
}

func TestUpgradeGraphSkipRangeOffers(t *testing.T) {
	c := channelOf(
		withVersion(Entry{Name: "v1.0.0"}, "1.0.0"),
		withVersion(Entry{Name: "v1.1.0", Replaces: "v1.0.0"}, "1.1.0"),
		withVersion(Entry{Name: "v1.2.0", Replaces: "v1.1.0", SkipRange: ">=1.0.0 <1.2.0"}, "1.2.0"),
	)
	want := map[string][]string{"v1.0.0": {"v1.2.0", "v1.1.0"}, "v1.1.0": {"v1.2.0"}}
	if got := NewUpgradeGraph(c).Edges(); !reflect.DeepEqual(got, want) {
		t.Errorf("Edges = %v, want %v", got, want)
	}
}

// loadChannel loads one channel of one package from a catalog directory.
func loadChannel(t *testing.T, dir, pkg, channel string) *Channel {
	t.Helper()
	cat, err := fbc.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, issues := FromCatalog(cat)
	if len(issues.Errors()) > 0 {
		t.Fatal(issues)
	}
	p := m.Packages[pkg]
	if p == nil || p.Channels[channel] == nil {
		t.Fatalf("%s: no channel %s of package %s", dir, channel, pkg)
	}
	return p.Channels[channel]
}

// kubernautChannel loads one side of the kubernaut-operator channel candidate-v1.
func kubernautChannel(t *testing.T, dir string) *Channel {
	t.Helper()
	return loadChannel(t, dir, "kubernaut-operator", "candidate-v1")
}

const kubernaut = "kubernaut-operator.v"

// kubernautAnswer is what OLM's resolver does with the channel: for each entry, where its users
// end up (the head, or the bundle where upgrades stop).
func kubernautAnswer(t *testing.T, ch *Channel) map[string]string {
	t.Helper()
	g := NewUpgradeGraph(ch)
	out := map[string]string{}
	for _, e := range ch.SortedEntries() {
		d := g.Destination(e.Name, EntryVersion(e))
		if path, ok := g.Path(e.Name, EntryVersion(e)); ok != d.ReachesHead || (ok && len(path) != d.Hops) {
			t.Errorf("%s: path %v (%v) and destination %+v disagree", e.Name, path, ok, d)
		}
		out[strings.TrimPrefix(e.Name, kubernaut)] = strings.TrimPrefix(d.End, kubernaut) + map[bool]string{true: " (head)", false: ""}[d.ReachesHead]
	}
	return out
}

// unreachable lists the bundles the validator says never reach the head.
func unreachable(issues Issues) []string {
	var out []string
	for _, i := range issues {
		if i.Rule == "unreachable-from-head" {
			out = append(out, strings.TrimPrefix(i.Bundle, kubernaut))
		}
	}
	return out
}

// TestKubernautChannel: 1.3.4 skips 1.3.2 and 1.3.3, 1.4.1 replaces and skips 1.3.4, 1.5.0
// replaces and skips 1.4.1. OLM offers only entries of the replaces chain from the head that no
// entry skips: before 1.5.0 that is 1.4.1 alone, so 1.3.4 upgrades to it; after, it is 1.5.0 alone,
// which names 1.4.1 only, so the users of 1.3.4 (and of 1.3.2, 1.3.3 as before) are cut off.
func TestKubernautChannel(t *testing.T) {
	oldCh, newCh := kubernautChannel(t, "testdata/kubernaut/old"), kubernautChannel(t, "testdata/kubernaut/new")
	wantOld := map[string]string{"1.3.2": "1.3.2", "1.3.3": "1.3.3", "1.3.4": "1.4.1 (head)", "1.4.1": "1.4.1 (head)"}
	wantNew := map[string]string{"1.3.2": "1.3.2", "1.3.3": "1.3.3", "1.3.4": "1.3.4", "1.4.1": "1.5.0 (head)", "1.5.0": "1.5.0 (head)"}
	if got := kubernautAnswer(t, oldCh); !reflect.DeepEqual(got, wantOld) {
		t.Errorf("old channel: %v, want %v", got, wantOld)
	}
	if got := kubernautAnswer(t, newCh); !reflect.DeepEqual(got, wantNew) {
		t.Errorf("new channel: %v, want %v", got, wantNew)
	}
	// the validator says the same, bundle by bundle
	if got := unreachable(validateDir(t, "testdata/kubernaut/old", Options{})); !reflect.DeepEqual(got, []string{"1.3.2", "1.3.3"}) {
		t.Errorf("old: unreachable-from-head for %v", got)
	}
	newIssues := validateDir(t, "testdata/kubernaut/new", Options{})
	if got := unreachable(newIssues); !reflect.DeepEqual(got, []string{"1.3.2", "1.3.3", "1.3.4"}) {
		t.Errorf("new: unreachable-from-head for %v", got)
	}
	if newIssues.Err() != nil {
		t.Errorf("opm accepts the channel; we must too: %v", newIssues.Err())
	}
}

// TestKubernautChannelReal reads the channel as community-operators-prod publishes it (the
// conformance corpus's catalogs/v4.20 subset, which has 1.5.0): the same answer as the test catalog.
func TestKubernautChannelReal(t *testing.T) {
	dir := filepath.Join(conformanceRoot(t), "fbc/community-v4.20-csvmetadata-subset/catalog/kubernaut-operator")
	want := map[string]string{"1.3.2": "1.3.2", "1.3.3": "1.3.3", "1.3.4": "1.3.4", "1.4.1": "1.5.0 (head)", "1.5.0": "1.5.0 (head)"}
	if got := kubernautAnswer(t, kubernautChannel(t, dir)); !reflect.DeepEqual(got, want) {
		t.Errorf("real channel: %v, want %v", got, want)
	}
	if got := unreachable(validateDir(t, dir, Options{})); !reflect.DeepEqual(got, []string{"1.3.2", "1.3.3", "1.3.4"}) {
		t.Errorf("real channel: unreachable-from-head for %v", got)
	}
}
