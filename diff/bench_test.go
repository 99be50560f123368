package diff_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// s5kShape is a generated catalog shaped like ../shared/bench/s5k: 200 packages of 25 bundles, 3 CRDs
// per bundle, ~4 KB CSV descriptions, bundle objects, skips and skipRanges.
var s5kShape = generate.Options{Packages: 200, BundlesPerPackage: 25, CRDsPerBundle: 3, SkipEvery: 3,
	DescriptionBytes: 4096, Seed: 5, Deprecations: true}

// nextRevision makes a plausible next revision of any catalog, in place: 1% of the bundles removed
// (never a channel head; the entries that replaced one now replace what it replaced and skip it, so
// that its users still upgrade), 1% added (copies of package heads with a higher version, appended as
// the new head of the channels the old head leads), and 1% of the channel entries given other edges
// (a replaces that jumps one version and skips it, or a skipRange over all older versions).
func nextRevision(c *fbc.Catalog) {
	const step = 100                  // every 100th bundle, entry: 1%
	heads := map[string]bool{}        // package/bundle heading some channel
	channelHeads := map[string]bool{} // package/channel/bundle
	for _, ch := range c.Channels {
		replaced := map[string]bool{}
		for _, e := range ch.Entries {
			replaced[e.Replaces] = true
			for _, s := range e.Skips {
				replaced[s] = true
			}
		}
		for _, e := range ch.Entries {
			if !replaced[e.Name] {
				heads[ch.Package+"/"+e.Name] = true
				channelHeads[ch.Package+"/"+ch.Name+"/"+e.Name] = true
			}
		}
	}
	var headIndexes []int
	for i, b := range c.Bundles {
		if heads[b.Package+"/"+b.Name] {
			headIndexes = append(headIndexes, i)
		}
	}
	quota := max(1, len(c.Bundles)/step)
	copyHead := map[int]bool{}
	for i := 0; i < quota && len(headIndexes) > 0; i++ {
		copyHead[headIndexes[i*len(headIndexes)/quota]] = true
	}
	deprecated := map[string]bool{}
	for _, d := range c.Deprecations {
		for _, e := range d.Entries {
			deprecated[d.Package+"/"+e.Reference.Name] = true
		}
	}
	removed := map[string]bool{}
	versions := map[string]string{}
	bundles := c.Bundles[:0]
	var added []fbc.Bundle
	copied := map[string]string{} // new bundle -> the head it follows
	removeNext := false
	for i, b := range c.Bundles {
		key := b.Package + "/" + b.Name
		versions[key] = bundleVersionOf(b)
		removeNext = removeNext || i%step == step/2
		if removeNext && !heads[key] && !deprecated[key] {
			removed[key], removeNext = true, false
			continue
		}
		if copyHead[i] {
			next := nextRelease(b)
			added = append(added, next)
			copied[next.Name] = b.Name
		}
		bundles = append(bundles, b)
	}
	c.Bundles = bundles
	changed := 0
	for ci := range c.Channels {
		ch := &c.Channels[ci]
		replacedBy := map[string]string{}
		references := map[string]int{} // how many entries replace or skip a name
		for _, e := range ch.Entries {
			replacedBy[e.Name] = e.Replaces
			references[e.Replaces]++
			for _, sk := range e.Skips {
				references[sk]++
			}
		}
		entries := ch.Entries[:0]
		for _, e := range ch.Entries {
			if removed[ch.Package+"/"+e.Name] {
				continue
			}
			for removed[ch.Package+"/"+e.Replaces] {
				e.Skips = append(e.Skips, e.Replaces)
				e.Replaces = replacedBy[e.Replaces]
			}
			if changed++; changed%step == 0 && e.Replaces != "" {
				prev := replacedBy[e.Replaces]
				if changed%(2*step) != 0 && prev != "" && !removed[ch.Package+"/"+prev] && len(e.Skips) == 0 &&
					references[e.Replaces] == 1 && references[prev] == 1 {
					e.Skips, e.Replaces = append(e.Skips, e.Replaces), prev
				} else if v := versions[ch.Package+"/"+e.Name]; v != "" {
					e.SkipRange = "<" + v
				}
			}
			entries = append(entries, e)
		}
		ch.Entries = entries
	}
	for _, b := range added {
		for ci := range c.Channels {
			ch := &c.Channels[ci]
			if ch.Package == b.Package && channelHeads[ch.Package+"/"+ch.Name+"/"+copied[b.Name]] {
				ch.Entries = append(ch.Entries, fbc.ChannelEntry{Name: b.Name, Replaces: copied[b.Name]})
			}
		}
		c.Bundles = append(c.Bundles, b)
	}
}

// nextRelease copies a bundle as its next release: version major+100, its own name and image.
func nextRelease(b fbc.Bundle) fbc.Bundle {
	next := b
	next.Properties = append([]fbc.Property(nil), b.Properties...)
	for i, p := range next.Properties {
		var v property.Package
		if p.Type != property.TypePackage || json.Unmarshal(p.Value, &v) != nil {
			continue
		}
		ver, err := semver.Parse(v.Version)
		if err != nil {
			continue
		}
		ver.Major += 100
		v.Version = ver.String()
		next.Properties[i] = property.Build(property.TypePackage, v)
		next.Name = b.Name + "-next-" + v.Version
		next.Image = b.Image + "-next"
		break
	}
	return next
}

func bundleVersionOf(b fbc.Bundle) string {
	for _, p := range b.Properties {
		var v property.Package
		if p.Type == property.TypePackage && json.Unmarshal(p.Value, &v) == nil {
			return v.Version
		}
	}
	return ""
}

// The revision maker does what the benchmark claims: ~1% removed, ~1% added, some edges changed, and
// the diff sees each of them without stranding anyone (removals are re-linked).
func TestNextRevisionShape(t *testing.T) {
	o := s5kShape
	o.Packages, o.DescriptionBytes = 20, 16
	oldCat, newCat := generate.Catalog(o), generate.Catalog(o)
	nextRevision(newCat)
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	kinds := map[diff.Kind]int{}
	for _, f := range r.Findings {
		kinds[f.Kind]++
	}
	if kinds[diff.BundleRemoved] != 5 || kinds[diff.BundleAdded] != 5 || kinds[diff.Stranded] != 0 ||
		kinds[diff.SkipRangeChanged] == 0 || kinds[diff.ReplacesChanged] == 0 || kinds[diff.ProblemIntroduced] != 0 {
		t.Errorf("finding kinds: %v", kinds)
	}
}

func benchmarkCompare(b *testing.B, change bool) {
	oldCat, newCat := generate.Catalog(s5kShape), generate.Catalog(s5kShape)
	if change {
		nextRevision(newCat)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := diff.Compare(side("old", oldCat), side("new", newCat))
		if change == (len(r.Findings) == 0) {
			b.Fatalf("%d findings", len(r.Findings))
		}
	}
}

// BenchmarkCompareS5KShape compares two loaded revisions (1% removed, 1% added, 1% of edges changed).
func BenchmarkCompareS5KShape(b *testing.B) { benchmarkCompare(b, true) }

// BenchmarkCompareS5KShapeIdentical compares a loaded catalog with an identical one.
func BenchmarkCompareS5KShapeIdentical(b *testing.B) { benchmarkCompare(b, false) }

// TestWriteBenchPair writes the two revisions as FBC directories for measuring the olmcat diff
// command from disk (wall time, peak memory): OLMCAT_DIFF_BENCH_DIR=/tmp/x go test -run
// TestWriteBenchPair ./diff/ gives /tmp/x/old and /tmp/x/new, of the generated s5k-shaped catalog, or
// of the FBC directory OLMCAT_DIFF_BENCH_BASE (e.g. the olmcat migrate output of the s5k index.db).
func TestWriteBenchPair(t *testing.T) {
	dir := os.Getenv("OLMCAT_DIFF_BENCH_DIR")
	if dir == "" {
		t.Skip("set OLMCAT_DIFF_BENCH_DIR to write the benchmark pair")
	}
	oldCat, newCat := generate.Catalog(s5kShape), generate.Catalog(s5kShape)
	if base := os.Getenv("OLMCAT_DIFF_BENCH_BASE"); base != "" {
		var err error
		if oldCat, err = fbc.Load(base); err != nil {
			t.Fatal(err)
		}
		newCat, _ = fbc.Load(base)
	}
	nextRevision(newCat)
	for name, cat := range map[string]*fbc.Catalog{"old": oldCat, "new": newCat} {
		for _, part := range fbc.SplitByPackage(cat) {
			path := filepath.Join(dir, name, part.Package, "catalog.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := fbc.Write(f, part.Catalog, fbc.JSON); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
