package convert

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
)

// randomCatalog makes a valid catalog with random upgrade graphs: per channel a replaces chain
// (sometimes ending in a dangling replaces), skips of chain entries and of bundles that exist
// nowhere, entries reachable only through a skip (with replaces and skips of their own),
// skipRanges that sometimes differ between channels, and deprecations.
func randomCatalog(r *rand.Rand) (*fbc.Catalog, map[string]bool) {
	c := &fbc.Catalog{}
	onlySkipped := map[string]bool{} // package/channel/bundle of entries reachable only through a skip
	for p := 0; p < 1+r.Intn(3); p++ {
		pkg := fmt.Sprintf("pkg%d", p)
		n := 2 + r.Intn(9)
		name := func(i int) string { return fmt.Sprintf("%s.v1.%d.0", pkg, i) }
		for i := 0; i < n; i++ {
			props := []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: pkg, Version: fmt.Sprintf("1.%d.0", i)})}
			csv := fmt.Sprintf(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":%q},"spec":{"version":"1.%d.0"}}`, name(i), i)
			props = append(props, property.Build(property.TypeBundleObject, property.BundleObject{Data: []byte(csv)}))
			if r.Intn(2) == 0 {
				props = append(props, property.Build(property.TypeGVK, property.GVK{Group: pkg + ".example.com", Kind: "Widget", Version: "v1"}))
			}
			c.Bundles = append(c.Bundles, fbc.Bundle{Schema: fbc.SchemaBundle, Name: name(i), Package: pkg,
				Image: "quay.io/example/" + name(i), Properties: props})
		}
		used := map[int]bool{}
		var channels []string
		for ch := 0; ch < 1+r.Intn(3); ch++ {
			chName := fmt.Sprintf("ch%d", ch)
			channel := fbc.Channel{Schema: fbc.SchemaChannel, Name: chName, Package: pkg}
			entries := map[int]*fbc.ChannelEntry{}
			var chain, skippedOnly []int
			for i := 0; i < n; i++ {
				switch {
				case i == n-1 || r.Intn(3) > 0:
					chain = append(chain, i)
				case r.Intn(2) == 0:
					skippedOnly = append(skippedOnly, i)
				}
			}
			for k, i := range chain {
				e := &fbc.ChannelEntry{Name: name(i)}
				if k > 0 {
					e.Replaces = name(chain[k-1])
				} else if r.Intn(4) == 0 {
					e.Replaces = pkg + ".v0.9.0" // dangling tail
				}
				if r.Intn(5) == 0 {
					e.Skips = append(e.Skips, fmt.Sprintf("%s.v1.%d.5", pkg, i)) // a bundle that exists nowhere
				}
				if r.Intn(3) == 0 {
					e.SkipRange = fmt.Sprintf("<1.%d.0", i)
					if len(channels) > 0 && r.Intn(3) == 0 {
						e.SkipRange = fmt.Sprintf(">=1.0.0 <1.%d.0", i)
					}
				}
				entries[i] = e
				used[i] = true
			}
			for _, i := range skippedOnly {
				e := &fbc.ChannelEntry{Name: name(i)}
				// Some chain entry above it skips it.
				var above []int
				for _, j := range chain {
					if j > i {
						above = append(above, j)
					}
				}
				skipper := entries[above[r.Intn(len(above))]]
				skipper.Skips = append(skipper.Skips, e.Name)
				// Its own edges: replaces any lower entry; skips only what a skip cannot strand
				// (the bottom of the chain, or another entry reachable only through a skip).
				var below, skippable []int
				for _, j := range chain {
					if j < i {
						below = append(below, j)
					}
				}
				for _, j := range skippedOnly {
					if j < i {
						below = append(below, j)
						skippable = append(skippable, j)
					}
				}
				if chain[0] < i {
					skippable = append(skippable, chain[0])
				}
				if len(below) > 0 && r.Intn(2) == 0 {
					e.Replaces = name(below[r.Intn(len(below))])
				}
				if len(skippable) > 0 && r.Intn(2) == 0 {
					e.Skips = append(e.Skips, name(skippable[r.Intn(len(skippable))]))
				}
				entries[i] = e
				used[i] = true
				onlySkipped[pkg+"/"+chName+"/"+e.Name] = true
			}
			var order []int
			for i := range entries {
				order = append(order, i)
			}
			sort.Ints(order)
			for _, i := range order {
				channel.Entries = append(channel.Entries, *entries[i])
			}
			r.Shuffle(len(channel.Entries), func(a, b int) {
				channel.Entries[a], channel.Entries[b] = channel.Entries[b], channel.Entries[a]
			})
			c.Channels = append(c.Channels, channel)
			channels = append(channels, chName)
		}
		// Bundles no channel uses would be invalid: drop them.
		kept := c.Bundles[:0]
		for _, b := range c.Bundles {
			var i int
			if _, err := fmt.Sscanf(b.Name, pkg+".v1.%d.0", &i); err == nil && b.Package == pkg && !used[i] {
				continue
			}
			kept = append(kept, b)
		}
		c.Bundles = kept
		c.Packages = append(c.Packages, fbc.Package{Schema: fbc.SchemaPackage, Name: pkg, DefaultChannel: channels[r.Intn(len(channels))]})
		if r.Intn(2) == 0 {
			c.Deprecations = append(c.Deprecations, fbc.Deprecation{Schema: fbc.SchemaDeprecations, Package: pkg, Entries: []fbc.DeprecationEntry{
				{Reference: fbc.Reference{Schema: fbc.SchemaChannel, Name: channels[0]}, Message: "use another channel"},
				{Reference: fbc.Reference{Schema: fbc.SchemaPackage}, Message: "package is deprecated"},
			}})
		}
	}
	return c, onlySkipped
}

// TestRandomCatalogsRoundTrip checks, for many random valid catalogs, that the index.db holds every
// upgrade edge (read back through olmcat's index.db → FBC), that exactly the documented changes
// are reported (replaces of entries reachable only through a skip, per-channel skipRanges,
// deprecations), and that the round trip then is a fixpoint.
func TestRandomCatalogsRoundTrip(t *testing.T) {
	seen := map[string]int{}
	defer func() {
		for _, kind := range []string{KindReplacesAsSkip, KindReplacesDropped, KindSkipRangePerChannel, KindDeprecation} {
			if seen[kind] == 0 {
				t.Errorf("no generated catalog exercised %s", kind)
			}
		}
		t.Logf("findings over all seeds: %v", seen)
	}()
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		cat, onlySkipped := randomCatalog(r)
		if issues := model.ValidateCatalog(cat, model.Options{}).Errors(); len(issues) > 0 {
			t.Fatalf("seed %d: the generator made an invalid catalog: %v", seed, issues)
		}
		db, report := writeDB(t, cat, ToSQLiteOptions{})
		for _, f := range append(report.Changes, report.Losses...) {
			seen[f.Kind]++
		}
		back, backReport := readBack(t, db)
		if len(backReport.Departures) > 0 {
			t.Errorf("seed %d: reading the index.db back departed from opm: %v", seed, backReport.Departures)
		}

		want := entryEdges(cat)
		asSkip, dropped := map[string]bool{}, map[string]bool{}
		for _, f := range append(report.Changes, report.Losses...) {
			switch f.Kind {
			case KindReplacesAsSkip:
				asSkip[f.Package+"/"+f.Channel+"/"+f.Bundle] = true
			case KindReplacesDropped:
				dropped[f.Package+"/"+f.Channel+"/"+f.Bundle] = true
			}
		}
		for key, e := range want {
			if e.Replaces != "" && onlySkipped[key] != (asSkip[key] || dropped[key]) {
				t.Errorf("seed %d: %s: reachable only through a skip = %v, its replaces reported as a skip %v, as dropped %v", seed, key, onlySkipped[key], asSkip[key], dropped[key])
			}
			if asSkip[key] {
				e.Skips = append(e.Skips, e.Replaces)
				sort.Strings(e.Skips)
			}
			if asSkip[key] || dropped[key] {
				e.Replaces = ""
				want[key] = e
			}
		}
		got := entryEdges(back)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("seed %d: upgrade edges differ after FBC → index.db → FBC (-want +got):\n%s", seed, diff)
		}
		checkReportedSkipRanges(t, seed, cat, back, report)
		deprecations := 0
		for _, d := range cat.Deprecations {
			deprecations += len(d.Entries)
		}
		if n := countKind(report.Losses, KindDeprecation); n != deprecations {
			t.Errorf("seed %d: %d deprecation losses reported for %d deprecation entries", seed, n, deprecations)
		}

		db2, _ := writeDB(t, back, ToSQLiteOptions{})
		again, _ := readBack(t, db2)
		if diff := cmp.Diff(string(catalogBytes(t, back)), string(catalogBytes(t, again))); diff != "" {
			t.Errorf("seed %d: the second round trip is not a fixpoint:\n%.3000s", seed, diff)
		}
	}
}

type edges struct {
	Replaces string
	Skips    []string
}

func entryEdges(c *fbc.Catalog) map[string]edges {
	out := map[string]edges{}
	for _, ch := range c.Channels {
		for _, e := range ch.Entries {
			skips := append([]string(nil), e.Skips...)
			sort.Strings(skips)
			out[ch.Package+"/"+ch.Name+"/"+e.Name] = edges{Replaces: e.Replaces, Skips: skips}
		}
	}
	return out
}

// checkReportedSkipRanges: a bundle whose skipRange is the same in all its channels keeps it; one
// whose channels disagree is reported, and comes back with one value everywhere.
func checkReportedSkipRanges(t *testing.T, seed int64, orig, back *fbc.Catalog, r *SQLiteReport) {
	t.Helper()
	values := func(c *fbc.Catalog) map[string]map[string]bool {
		out := map[string]map[string]bool{}
		for _, ch := range c.Channels {
			for _, e := range ch.Entries {
				key := ch.Package + "/" + e.Name
				if out[key] == nil {
					out[key] = map[string]bool{}
				}
				out[key][e.SkipRange] = true
			}
		}
		return out
	}
	reported := map[string]bool{}
	for _, f := range r.Losses {
		if f.Kind == KindSkipRangePerChannel {
			reported[f.Package+"/"+f.Bundle] = true
		}
	}
	was, now := values(orig), values(back)
	for key, set := range was {
		if (len(set) > 1) != reported[key] {
			t.Errorf("seed %d: %s has skipRanges %v, reported as per-channel: %v", seed, key, set, reported[key])
		}
		if len(set) == 1 && !cmp.Equal(set, now[key]) {
			t.Errorf("seed %d: %s: skipRange %v came back as %v", seed, key, set, now[key])
		}
		if len(now[key]) > 1 {
			t.Errorf("seed %d: %s: channels disagree after the round trip: %v", seed, key, now[key])
		}
	}
}

func countKind(list []Finding, kind string) int {
	n := 0
	for _, f := range list {
		if f.Kind == kind {
			n++
		}
	}
	return n
}
