package resolve

import (
	"slices"
	"strings"
	"testing"
)

// OLM v0 follows the channel, not the versions: the head of the replaces chain (default channel
// first), upgrades only along replaces/skips/skipRange, skipped entries never candidates.
func TestResolveV0(t *testing.T) {
	bundles := [][2]string{{"p.v1", "1.0.0"}, {"p.v2", "2.0.0"}, {"p.v3", "3.0.0"}, {"p.v9", "9.0.0"}, {"p.v4", "4.0.0"}}
	chans := map[string][]string{
		// stable (the default channel): v2 replaces v1; v3 replaces v2 and skips v1 (so v1 is left
		// out of the order); v4 replaces v3
		"stable": {"p.v1", "p.v2<p.v1", "p.v3<p.v2|!p.v1", "p.v4<p.v3"},
		// alpha sorts before stable by name, yet the default channel comes first; v9 is its head
		"alpha": {"p.v2", "p.v9<p.v2|~>=1.0.0 <9.0.0"},
	}
	r := catalogOf(t, bundles, chans, nil, map[string]string{"p.v4": `{"type":"olm.package.required","value":{"packageName":"q","versionRange":">=1.0.0"}}`})
	inst := func(name, version string) *Installed { return &Installed{Name: name, Version: version} }
	for _, tc := range []struct {
		name       string
		q          Query
		bundle     string
		err        string
		successors []string
		note       bool
	}{
		// the default channel's head, not the highest version (p.v9 in alpha)
		{name: "install", q: Query{Package: "p"}, bundle: "p.v4", note: true},
		{name: "install alpha", q: Query{Package: "p", Channels: []string{"alpha"}}, bundle: "p.v9"},
		// from v1: v3 skips it, v2 replaces it (in chain order, head first), then alpha's v9 by its
		// skipRange; the nearest to the head wins, not the highest version
		{name: "upgrade stable", q: Query{Package: "p", Channels: []string{"stable"}, Installed: inst("p.v1", "1.0.0")}, bundle: "p.v3", successors: []string{"p.v3", "p.v2"}},
		{name: "upgrade any", q: Query{Package: "p", Installed: inst("p.v1", "1.0.0")}, bundle: "p.v3", successors: []string{"p.v3", "p.v2", "p.v9"}},
		{name: "upgrade alpha", q: Query{Package: "p", Channels: []string{"alpha"}, Installed: inst("p.v2", "2.0.0")}, bundle: "p.v9", successors: []string{"p.v9"}},
		{name: "at latest", q: Query{Package: "p", Channels: []string{"alpha"}, Installed: inst("p.v9", "9.0.0")}, bundle: "p.v9", successors: []string{}},
		{name: "no channel", q: Query{Package: "p", Channels: []string{"beta"}}, err: "no operators found in channel beta of package p in the catalog referenced by subscription p"},
		{name: "no package", q: Query{Package: "q"}, err: "no operators found in package q in the catalog referenced by subscription q"},
		{name: "v1 fields", q: Query{Package: "p", Version: "1.x"}, err: "a Subscription has no version range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.ResolveV0(tc.q)
			if got.Bundle != tc.bundle || !strings.HasPrefix(got.Error, tc.err) || (tc.err == "") != (got.Error == "") ||
				!slices.Equal(got.Successors, tc.successors) || (got.Note != "") != tc.note {
				t.Errorf("got %+v\nwant bundle %q error %q successors %v note %v", got, tc.bundle, tc.err, tc.successors, tc.note)
			}
		})
	}

	two := catalogOf(t, bundles[:3], map[string][]string{"stable": {"p.v1", "p.v2", "p.v3<p.v2"}}, nil, nil)
	want := `a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "stable" of package "p": p.v1, p.v3...p.v2`
	if got := two.ResolveV0(Query{Package: "p"}); got.Error != want {
		t.Errorf("two heads: got %+v\nwant %q", got, want)
	}
}
