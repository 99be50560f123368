package ops

import (
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
)

// s5kShape is a generated catalog of the s5k benchmark's shape: 200 packages × 25 bundles.
var s5kShape = generate.Options{Packages: 200, BundlesPerPackage: 25, CRDsPerBundle: 3, SkipEvery: 3, DescriptionBytes: 4000, Seed: 5}

func benchCatalog(b *testing.B) *fbc.Catalog {
	b.Helper()
	return generate.Catalog(s5kShape)
}

// BenchmarkAddHead adds a new head to one channel of a 5,000-bundle catalog (replaces mode): the
// cost of an edit is the copy of the catalog's slices plus validating the one changed package.
func BenchmarkAddHead(b *testing.B) {
	base := benchCatalog(b)
	pkg := generate.PackageName(100)
	nb := FromBlob(newBlob(pkg, "9.0.0"), []string{"stable"}, "")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := *base
		if _, err := Add(&c, []NewBundle{nb}, AddOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRemoveAndStitch removes a mid-channel bundle from every channel holding it.
func BenchmarkRemoveAndStitch(b *testing.B) {
	base := benchCatalog(b)
	pkg := generate.PackageName(100)
	name := generate.BundleName(pkg, 12)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := *base
		if _, err := RemoveBundles(&c, []string{name}, RemoveOptions{Package: pkg}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRebuildSemver rebuilds one 25-bundle channel from versions.
func BenchmarkRebuildSemver(b *testing.B) {
	base := benchCatalog(b)
	pkg := generate.PackageName(100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := *base
		if err := RebuildChannel(&c, pkg, "stable", ModeSemver); err != nil {
			b.Fatal(err)
		}
	}
}
