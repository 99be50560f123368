package filter_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/filter"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/fixtures/procstat"
	"github.com/olmcat/olmcat/internal/source"
)

// Issue 28 item 5: filter reads a package at a time and never holds the whole catalog. The same
// three packages are filtered out of a generated catalog of 40 packages and of one of 800 (1,000
// and 20,000 bundles), from its FBC directory and its index.db, each run a child process (this
// test binary) whose peak RSS is read from its rusage. The larger catalog may cost no more than
// 10 MB more: what an index.db's row index keeps per bundle (about 0.1 kB; it was 0.7 kB, 14 MB
// more at this size, before the garbage collector's slack) and the page cache's reads.

var memoryPackages = []string{generate.PackageName(1), generate.PackageName(17), generate.PackageName(33)}

func TestFilterMemoryDoesNotGrowWithCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("generates catalogs of 20,000 bundles")
	}
	dir := t.TempDir()
	sizes := []int{40, 800}
	for _, n := range sizes {
		writeGenerated(t, filepath.Join(dir, fmt.Sprint(n)), n)
	}
	for _, form := range []string{"fbc", "index.db"} {
		var runs []procstat.ChildRun
		for _, n := range sizes {
			runs = append(runs, measureFilterMemory(t, filepath.Join(dir, fmt.Sprint(n), form), filepath.Join(dir, fmt.Sprintf("out-%d-%s", n, form))))
		}
		small, large := runs[0], runs[1]
		t.Logf("%s: %d packages: wall %v, cpu %v, peak RSS %.0f MB; %d packages: wall %v, cpu %v, peak RSS %.0f MB", form,
			sizes[0], small.Wall.Round(time.Millisecond), small.CPU.Round(time.Millisecond), small.RSSMB,
			sizes[1], large.Wall.Round(time.Millisecond), large.CPU.Round(time.Millisecond), large.RSSMB)
		if large.RSSMB > small.RSSMB+10 {
			t.Errorf("%s: filtering 3 packages took %.0f MB of a catalog of %d packages and %.0f MB of one of %d: memory grows with the catalog",
				form, small.RSSMB, sizes[0], large.RSSMB, sizes[1])
		}
	}
}

// writeGenerated writes a catalog of n small packages (25 bundles each) as dir/fbc and dir/index.db.
func writeGenerated(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "fbc"), 0o755); err != nil {
		t.Fatal(err)
	}
	layout := ops.NewLayout(filepath.Join(dir, "fbc"), fbc.JSON)
	o := generate.Options{Packages: n, BundlesPerPackage: 25, CRDsPerBundle: 1, SkipEvery: 3, DescriptionBytes: 200, Seed: 7, Releases: true}
	if err := generate.Each(o, func(c *fbc.Catalog) error { return layout.Write(c.Packages[0].Name, c) }); err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(context.Background(), filepath.Join(dir, "fbc"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := convert.ToSQLiteFromSource(context.Background(), src, filepath.Join(dir, "index.db"), convert.ToSQLiteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func measureFilterMemory(t *testing.T, catalog, out string) procstat.ChildRun {
	t.Helper()
	run, err := procstat.RunChild("TestFilterMemoryChild", "OLMCAT_FILTER_MEMORY_CHILD="+catalog, "OLMCAT_FILTER_MEMORY_OUT="+out)
	if err != nil {
		t.Fatalf("filtering %s: %v", catalog, err)
	}
	return run
}

// TestFilterMemoryChild is one measured process of TestFilterMemoryDoesNotGrowWithCatalog: the
// filter of the command, heads-only, of memoryPackages.
func TestFilterMemoryChild(t *testing.T) {
	catalog := os.Getenv("OLMCAT_FILTER_MEMORY_CHILD")
	if catalog == "" {
		t.Skip("run by TestFilterMemoryDoesNotGrowWithCatalog")
	}
	src, err := source.Open(context.Background(), catalog, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cfg := &filter.Config{}
	for _, name := range memoryPackages {
		cfg.Packages = append(cfg.Packages, filter.Package{Name: name})
	}
	rep, err := filter.Write(context.Background(), src, cfg, os.Getenv("OLMCAT_FILTER_MEMORY_OUT"), filter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != len(memoryPackages) {
		t.Fatalf("kept %d packages, want %d", len(rep.Packages), len(memoryPackages))
	}
	procstat.ReportOwnPeak(os.Stderr)
}
