package model

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
)

// The cases UPGRADES.md lists, each read on a real channel of ../shared where one has it. The
// expected answers follow OLM's code (UPGRADES.md): resolver.go sortChannel for the order,
// cache/predicates.go for the offers, blang/semver ranges for skipRange matching.

// trimmed drops a package's common bundle-name prefix, so that failures read as versions.
func trimmed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimPrefix(n, prefix)
	}
	return out
}

// TestUpgradeGraphSkippedBundleUnderHeadSkipRange: jaeger-product's stable channel as the
// redhat-operator-index published it. v1.42.0-5 is skipped by v1.42.0-5-0.1687199951.p (version
// 1.42.0-5+0.1687199951.p) and is off the replaces chain, so it is never upgraded to; its users
// are still offered the head, whose skipRange >=1.13.0 <1.51.0-1 covers them. Pre-releases take part in
// blang/semver ranges by plain ordering (1.42.0-5 < 1.47.1-5), and build metadata is ignored: a
// user on 1.42.0-5+0.1687199951.p is not below 1.42.0-5.
func TestUpgradeGraphSkippedBundleUnderHeadSkipRange(t *testing.T) {
	dir := filepath.Join(conformanceRoot(t), "fbc/ocmirror-jaeger-product-json/catalog")
	ch := loadChannel(t, dir, "jaeger-product", "stable")
	g := NewUpgradeGraph(ch)
	const p = "jaeger-operator.v"
	if got := trimmed(p, g.Heads()); !reflect.DeepEqual(got, []string{"1.51.0-1"}) {
		t.Errorf("heads = %v, want the one head 1.51.0-1 (the skipped 1.42.0-5 is no head)", got)
	}
	wantOrder := []string{"1.51.0-1", "1.47.1-5", "1.42.0-5-0.1687199951.p", "1.34.1-5", "1.30.2"}
	if got := trimmed(p, g.Order()); !reflect.DeepEqual(got, wantOrder) {
		t.Errorf("order = %v, want %v", got, wantOrder)
	}
	offers := map[string][]string{
		// skipped, yet offered the head (skipRange), 1.47.1-5 (skipRange) and its skipper (skips)
		"1.42.0-5": {"1.51.0-1", "1.47.1-5", "1.42.0-5-0.1687199951.p"},
		// 1.42.0-5+0.1687199951.p is not < 1.42.0-5: its own range and nothing below covers it
		"1.42.0-5-0.1687199951.p": {"1.51.0-1", "1.47.1-5"},
		"1.34.1-5":                {"1.51.0-1", "1.47.1-5", "1.42.0-5-0.1687199951.p"},
		"1.30.2":                  {"1.51.0-1", "1.47.1-5", "1.42.0-5-0.1687199951.p", "1.34.1-5"},
		"1.47.1-5":                {"1.51.0-1"},
	}
	for name, want := range offers {
		e := ch.Entries[p+name]
		if e == nil {
			t.Fatalf("no entry %s%s", p, name)
		}
		if got := trimmed(p, g.Successors(e.Name, EntryVersion(e))); !reflect.DeepEqual(got, want) {
			t.Errorf("%s (version %s) is offered %v, want %v", name, e.Bundle.VersionString, got, want)
		}
		if d := g.Destination(e.Name, EntryVersion(e)); d != (Destination{Hops: 1, End: p + "1.51.0-1", ReachesHead: true}) {
			t.Errorf("%s: OLM takes the offer nearest the head, the head itself: %+v", name, d)
		}
	}
	for from, to := range g.Edges() {
		for _, n := range to {
			if n == p+"1.42.0-5" {
				t.Errorf("%s is offered the skipped bundle 1.42.0-5", from)
			}
		}
	}
}

// TestUpgradeGraphReplacesOutsideChannel: sailoperator's 1.31-nightly channel after the 1.30-nightly
// channel was pruned (diffpairs sailoperator-v4.18-prune-channel). Its lowest entry replaces
// sailoperator.v1.30.0-nightly-2026-08-04, a bundle that is no entry of the channel (on the old
// side it is the entry of the other channel, 1.30-nightly): the order ends there, and a user still on
// it is offered what replaces it by name, plus, with its version, every skipRange that covers it.
// The skipRanges are >=1.0.0 <1.31.0-nightly-DATE: a pre-release of a higher version is >= 1.0.0, a
// nightly of an earlier date is below a later one, and 0.1.0-rc.1 is below 1.0.0.
func TestUpgradeGraphReplacesOutsideChannel(t *testing.T) {
	pair := "../../../shared/diffpairs/fbc/sailoperator-v4.18-prune-channel"
	if _, err := os.Stat(pair); err != nil {
		t.Skipf("diff pair not found at %s (it lives in /work/shared/diffpairs): %v", pair, err)
	}
	const p = "sailoperator.v"
	const gone = p + "1.30.0-nightly-2026-08-04"
	for _, side := range []string{"old", "new"} {
		ch := loadChannel(t, filepath.Join(pair, side), "sailoperator", "1.31-nightly")
		g := NewUpgradeGraph(ch)
		wantOrder := []string{"1.31.0-nightly-2026-08-19", "1.31.0-nightly-2026-08-18", "1.31.0-nightly-2026-08-13",
			"1.31.0-nightly-2026-08-12", "1.31.0-nightly-2026-08-11", "1.31.0-nightly-2026-08-10"}
		if got := trimmed(p, g.Order()); !reflect.DeepEqual(got, wantOrder) {
			t.Errorf("%s: order = %v, want %v (it ends where replaces leaves the channel)", side, got, wantOrder)
		}
		if _, in := ch.Entries[gone]; in {
			t.Fatalf("%s: %s is an entry of 1.31-nightly; the test needs it outside", side, gone)
		}
		v := semver.MustParse("1.30.0-nightly-2026-08-04")
		if got := trimmed(p, g.Successors(gone, &v)); !reflect.DeepEqual(got, wantOrder) {
			t.Errorf("%s: a user on %s is offered %v, want every entry (replaces names it, every range covers it)", side, gone, got)
		}
		if d := g.Destination(gone, &v); d != (Destination{Hops: 1, End: p + wantOrder[0], ReachesHead: true}) {
			t.Errorf("%s: with its version: %+v", side, d)
		}
		if got := trimmed(p, g.Successors(gone, nil)); !reflect.DeepEqual(got, []string{"1.31.0-nightly-2026-08-10"}) {
			t.Errorf("%s: without a version only replaces offers: %v", side, got)
		}
		if d := g.Destination(gone, nil); d != (Destination{Hops: 2, End: p + wantOrder[0], ReachesHead: true}) {
			t.Errorf("%s: without a version, via 08-10 whose version the head's range covers: %+v", side, d)
		}
		rc := semver.MustParse("0.1.0-rc.1")
		if got := g.Successors(p+"0.1.0-rc.1", &rc); len(got) != 0 {
			t.Errorf("%s: 0.1.0-rc.1 is below >=1.0.0, offered %v", side, got)
		}
	}
}

// TestUpgradeGraphChannelsReadApart: visionone-containersecurity (community v4.12 subset) has
// v0.0.2 in two channels: in alpha it replaces v0.0.1, in stable it replaces nothing. OLM reads
// each channel's entries alone (the subscription's channel predicate), so a user on v0.0.1 reaches
// the head in alpha and is offered nothing in stable, though the same bundle names it in alpha.
func TestUpgradeGraphChannelsReadApart(t *testing.T) {
	dir := filepath.Join(conformanceRoot(t), "fbc/community-v4.12-bundleobject-subset/catalog/visionone-containersecurity")
	const p = "visionone-containersecurity.v"
	v1 := semver.MustParse("0.0.1")
	alpha := NewUpgradeGraph(loadChannel(t, dir, "visionone-containersecurity", "alpha"))
	stable := NewUpgradeGraph(loadChannel(t, dir, "visionone-containersecurity", "stable"))
	if d := alpha.Destination(p+"0.0.1", &v1); d != (Destination{Hops: 4, End: p + "0.0.5", ReachesHead: true}) {
		t.Errorf("alpha: %+v", d)
	}
	if got := stable.Successors(p+"0.0.1", &v1); len(got) != 0 {
		t.Errorf("stable offers v0.0.1 %v: alpha's replaces leaked into stable", got)
	}
	if d := stable.Destination(p+"0.0.1", &v1); d != (Destination{End: p + "0.0.1"}) {
		t.Errorf("stable: %+v", d)
	}
}

// TestUpgradeGraphSkipRangeMakesNoHead: a skipRange does not count as replacing (OLM's sortChannel
// and opm's Channel.Head fill "replaced by" from replaces and skips only), so a bundle only a
// skipRange covers is a second head: OLM resolves nothing in the channel.
func TestUpgradeGraphSkipRangeMakesNoHead(t *testing.T) {
	c := channelOf(
		withVersion(Entry{Name: "v1.0.0"}, "1.0.0"),
		withVersion(Entry{Name: "v1.1.0", SkipRange: "<1.1.0"}, "1.1.0"),
	)
	g := NewUpgradeGraph(c)
	if got := g.Heads(); !reflect.DeepEqual(got, []string{"v1.0.0", "v1.1.0"}) {
		t.Errorf("heads = %v, want both", got)
	}
	if g.Head() != "v1.1.0" {
		t.Errorf("read from the highest head, got %q", g.Head())
	}
	if got := g.Successors("v1.0.0", EntryVersion(c.Entries["v1.0.0"])); !reflect.DeepEqual(got, []string{"v1.1.0"}) {
		t.Errorf("v1.0.0 offered %v", got)
	}
}

// TestUpgradeGraphVersionOLMReads: what a skipRange is matched against is the installed CSV's
// spec.version, which OLM parses with semver.ParseTolerant (operator-framework/api
// OperatorVersion). A catalog version that is not strict semver (opm refuses the catalog for it)
// is read the same way; one no parser accepts matches no skipRange, and replaces and skips still
// offer upgrades from it and to it.
func TestUpgradeGraphVersionOLMReads(t *testing.T) {
	entry := func(name, version, replaces, skipRange string) Entry {
		b := &Bundle{Name: name, VersionString: version}
		if v, err := semver.Parse(version); err == nil {
			b.Version = v
		} else {
			b.VersionErr = err
		}
		return Entry{Name: name, Replaces: replaces, SkipRange: skipRange, Bundle: b}
	}
	c := channelOf(
		entry("a.v1.0", "v1.0", "", ""),
		entry("a.latest", "latest", "a.v1.0", ""),
		entry("a.v2.0.0", "2.0.0", "a.latest", ">=1.0.0 <2.0.0"),
	)
	if v := EntryVersion(c.Entries["a.v1.0"]); v == nil || v.String() != "1.0.0" {
		t.Errorf("v1.0 reads as %v, want 1.0.0 (ParseTolerant)", v)
	}
	if v := EntryVersion(c.Entries["a.latest"]); v != nil {
		t.Errorf("latest reads as %v, want none", v)
	}
	g := NewUpgradeGraph(c)
	if got := g.Successors("a.v1.0", EntryVersion(c.Entries["a.v1.0"])); !reflect.DeepEqual(got, []string{"a.v2.0.0", "a.latest"}) {
		t.Errorf("v1.0 offered %v: the head's range covers 1.0.0", got)
	}
	if got := g.Successors("a.latest", EntryVersion(c.Entries["a.latest"])); !reflect.DeepEqual(got, []string{"a.v2.0.0"}) {
		t.Errorf("latest offered %v: replaces only", got)
	}
}

// TestUpgradeWarningsNameTheDeadEdges: clusterpulse's fast-v0 channel (community v4.20 subset).
// v0.3.0 replaces and skips v0.2.3, which replaces v0.1.1 and skips v0.1.1 to v0.2.2. OLM never
// upgrades to the skipped v0.2.3, so the users of v0.1.1 to v0.2.2 are offered nothing, though
// every one of them has an edge to v0.2.3 in the catalog (and in the picture). The warnings say so:
// the skipped bundle's warning names every bundle its dead edges were for, and each unreachable
// bundle's warning names the entry whose edge OLM ignores.
func TestUpgradeWarningsNameTheDeadEdges(t *testing.T) {
	dir := filepath.Join(conformanceRoot(t), "fbc/community-v4.20-csvmetadata-subset/catalog/clusterpulse")
	const p = "clusterpulse.v"
	var skipped []string
	unreachable := map[string]string{}
	for _, i := range validateDir(t, dir, Options{}) {
		switch {
		case i.Channel != "fast-v0":
		case i.Rule == "skipped-on-replaces-chain":
			skipped = append(skipped, i.Bundle+": "+i.Message+" / "+i.Hint)
		case i.Rule == "unreachable-from-head":
			unreachable[strings.TrimPrefix(i.Bundle, p)] = i.Message
		}
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], p+"0.2.3: ") {
		t.Fatalf("skipped-on-replaces-chain: %q, want one, for v0.2.3", skipped)
	}
	dead := p + "0.1.1, " + p + "0.2.0, " + p + "0.2.1, " + p + "0.2.2"
	fix := `"` + strings.ReplaceAll(dead, ", ", `", "`) + `"`
	if !strings.Contains(skipped[0], dead+" get no upgrade through it") || !strings.Contains(skipped[0], "replace or skip "+fix+" themselves") {
		t.Errorf("the skipped bundle's warning does not name every bundle its edges were for (%s): %s", dead, skipped[0])
	}
	for _, v := range []string{"0.1.1", "0.2.0", "0.2.1", "0.2.2"} {
		msg, ok := unreachable[v]
		if !ok {
			t.Errorf("no unreachable-from-head for %s", v)
			continue
		}
		if !strings.HasSuffix(msg, "; "+p+"0.2.3 does, but OLM v0 never upgrades to it") {
			t.Errorf("%s: the warning does not name the edge OLM ignores: %s", v, msg)
		}
	}
}
