package diff_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// s5kShape is a generated catalog shaped like ../shared/bench/s5k: 200 packages of 25 bundles, 3 CRDs
// per bundle, ~4 KB CSV descriptions, bundle objects, skips and skipRanges.
var s5kShape = generate.Options{Packages: 200, BundlesPerPackage: 25, CRDsPerBundle: 3, SkipEvery: 3,
	DescriptionBytes: 4096, Seed: 5, Deprecations: true}

// nextRevision makes a plausible next revision of a generated catalog, in place: 1% of the bundles
// removed (their successors replace what they replaced and skip them), 1% added as new heads, and 1%
// of the channel entries given other edges (a skipRange, or in stable a replaces that jumps one
// version and skips it).
func nextRevision(c *fbc.Catalog, o generate.Options) {
	total := o.Packages * o.BundlesPerPackage
	step := 100 // every 100th bundle, entry, package: 1%
	removed := map[string]bool{}
	for i := step / 2; i < total; i += step {
		p, j := i/o.BundlesPerPackage, i%o.BundlesPerPackage
		if j == 0 || j == o.BundlesPerPackage-1 {
			j = 1
		}
		removed[generate.BundleName(generate.PackageName(p), j)] = true
	}
	bundles := c.Bundles[:0]
	for _, b := range c.Bundles {
		if !removed[b.Name] {
			bundles = append(bundles, b)
		}
	}
	c.Bundles = bundles
	changed := 0
	for ci := range c.Channels {
		ch := &c.Channels[ci]
		replacedBy := map[string]string{}
		for _, e := range ch.Entries {
			replacedBy[e.Name] = e.Replaces
		}
		entries := ch.Entries[:0]
		for _, e := range ch.Entries {
			if removed[e.Name] {
				continue
			}
			for removed[e.Replaces] { // skip over the removed bundle, so that its users still upgrade
				e.Skips = append(e.Skips, e.Replaces)
				e.Replaces = replacedBy[e.Replaces]
			}
			if changed++; changed%step == 0 && e.Replaces != "" {
				if changed%(2*step) == 0 || ch.Name != "stable" {
					e.SkipRange = ">=1.0.0 <" + versionOf(e.Name)
				} else if prev := replacedBy[e.Replaces]; prev != "" && !removed[prev] {
					e.Skips, e.Replaces = append(e.Skips, e.Replaces), prev
				}
			}
			entries = append(entries, e)
		}
		ch.Entries = entries
	}
	for added := 0; added < total/step; added++ {
		p := (added * step / o.BundlesPerPackage) % o.Packages
		addRelease(c, p, o.BundlesPerPackage+added/o.Packages)
	}
}

func versionOf(bundle string) string {
	for i := len(bundle) - 1; i >= 0; i-- {
		if bundle[i] == 'v' {
			return bundle[i+1:]
		}
	}
	return bundle
}

// addRelease appends bundle j of package p as the new head of every channel of the package.
func addRelease(c *fbc.Catalog, p, j int) {
	pkg := generate.PackageName(p)
	name := generate.BundleName(pkg, j)
	for ci := range c.Channels {
		ch := &c.Channels[ci]
		if ch.Package != pkg || len(ch.Entries) == 0 {
			continue
		}
		ch.Entries = append(ch.Entries, fbc.ChannelEntry{Name: name, Replaces: ch.Entries[len(ch.Entries)-1].Name})
	}
	c.Bundles = append(c.Bundles, fbc.Bundle{Schema: fbc.SchemaBundle, Name: name, Package: pkg,
		Image:      fmt.Sprintf("quay.io/generated/%s-bundle:v%s", pkg, generate.Version(j)),
		Properties: []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: pkg, Version: generate.Version(j)})}})
}

// The revision maker does what the benchmark claims: ~1% removed, ~1% added, some edges changed, and
// the diff sees each of them without stranding anyone (removals are re-linked).
func TestNextRevisionShape(t *testing.T) {
	o := s5kShape
	o.Packages, o.DescriptionBytes = 20, 16
	oldCat, newCat := generate.Catalog(o), generate.Catalog(o)
	nextRevision(newCat, o)
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
		nextRevision(newCat, s5kShape)
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
// TestWriteBenchPair ./diff/ gives /tmp/x/old and /tmp/x/new.
func TestWriteBenchPair(t *testing.T) {
	dir := os.Getenv("OLMCAT_DIFF_BENCH_DIR")
	if dir == "" {
		t.Skip("set OLMCAT_DIFF_BENCH_DIR to write the benchmark pair")
	}
	oldCat, newCat := generate.Catalog(s5kShape), generate.Catalog(s5kShape)
	nextRevision(newCat, s5kShape)
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
