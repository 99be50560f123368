package fbcbackend

import (
	"sort"
	"testing"
)

// listOrder sorts only channels; the rows must still come out in opm's order: by channel name,
// then package name, then bundle name.
func TestListOrderIsChannelPackageBundle(t *testing.T) {
	channel := func(name string, entries ...string) *channelIndex {
		c := &channelIndex{Name: name}
		for _, e := range entries {
			c.Entries = append(c.Entries, &entryIndex{Name: e})
		}
		return c
	}
	ix := &index{Packages: []*pkgIndex{ // sorted by name, channels and entries too, as built
		{Name: "alpha", Channels: []*channelIndex{channel("beta", "a.2", "a.3"), channel("stable", "a.1", "a.2")}},
		{Name: "beta", Channels: []*channelIndex{channel("alpha", "b.1"), channel("stable", "b.1", "b.2")}},
		{Name: "gamma", Channels: []*channelIndex{channel("beta", "g.1"), channel("candidate", "g.1"), channel("stable", "g.0")}},
	}}
	var want []listKey
	for _, p := range ix.Packages {
		for _, c := range p.Channels {
			for _, e := range c.Entries {
				want = append(want, listKey{p, c, e})
			}
		}
	}
	sort.Slice(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if a.ch.Name != b.ch.Name {
			return a.ch.Name < b.ch.Name
		}
		if a.pkg.Name != b.pkg.Name {
			return a.pkg.Name < b.pkg.Name
		}
		return a.entry.Name < b.entry.Name
	})
	got := ix.listOrder()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %s/%s/%s, want %s/%s/%s", i, got[i].ch.Name, got[i].pkg.Name, got[i].entry.Name,
				want[i].ch.Name, want[i].pkg.Name, want[i].entry.Name)
		}
	}
}
