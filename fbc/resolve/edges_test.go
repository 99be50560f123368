package resolve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/resolve"
)

// withoutSelf is a successor list as UpgradeEdges gives it: the installed bundle left out, each
// name once.
func withoutSelf(list []string, self string) []string {
	out := []string{}
	for _, s := range list {
		if s != self && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// UpgradeEdges gives, for each installed bundle, the successors operator-controller itself listed
// (olmv1/*/resolve.jsonl, recorded from its SuccessorsOf at df2c201d) for the queries that ask no
// channel and the default policy.
func TestUpgradeEdgesMatchOLMv1(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "olmv1", "*", "resolve.jsonl"))
	if len(files) == 0 {
		t.Skipf("OLM v1 recordings not found at %s/olmv1 (run with /work/shared present)", conformanceDir)
	}
	compared := 0
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		side, err := input.Open(context.Background(), filepath.Join(conformanceDir, "fbc", name, "catalog"), input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := resolve.New(side.Catalog)
		if err != nil {
			t.Fatal(err)
		}
		edges := map[string]map[string][]string{}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for line := 1; sc.Scan(); line++ {
			var rec recorded
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			if rec.Installed == nil || len(rec.Channels) > 0 || rec.Version != "" || (rec.Policy != "" && rec.Policy != resolve.CatalogProvided) {
				continue
			}
			if edges[rec.Package] == nil {
				edges[rec.Package] = r.UpgradeEdges(rec.Package)
			}
			got, ok := edges[rec.Package][rec.Installed.Name]
			if !ok && rec.Successors == nil {
				continue // OLM v1 could not read the installed version, and lists none
			}
			want := withoutSelf(rec.Successors, rec.Installed.Name)
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s:%d: edges from %s: got %v, OLM v1 listed %v", file, line, rec.Installed.Name, got, want)
			}
			compared++
		}
		f.Close()
	}
	if compared < 100 {
		t.Errorf("compared only %d installed bundles", compared)
	}
	t.Logf("%d installed bundles' successors compared", compared)
}

// UpgradeEdges is Resolve's successor list for every bundle installed, on every catalog the
// conformance and diff-pair corpora hold (both sides of each pair).
func TestUpgradeEdgesAreResolveSuccessors(t *testing.T) {
	var dirs []string
	fbcDirs, _ := filepath.Glob(filepath.Join(conformanceDir, "fbc", "*", "catalog"))
	pairs, _ := filepath.Glob(filepath.Join(conformanceDir, "..", "diffpairs", "fbc", "*", "*"))
	for _, p := range pairs {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dirs = append(dirs, p)
		}
	}
	dirs = append(fbcDirs, dirs...)
	if len(dirs) == 0 {
		t.Skipf("no catalogs under %s (run with /work/shared present)", conformanceDir)
	}
	bundles := 0
	for _, dir := range dirs {
		side, err := input.Open(context.Background(), dir, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := resolve.New(side.Catalog)
		if err != nil {
			t.Fatal(err)
		}
		pkgs := map[string][]*fbc.Bundle{}
		for i := range side.Catalog.Bundles {
			b := &side.Catalog.Bundles[i]
			pkgs[b.Package] = append(pkgs[b.Package], b)
		}
		for pkg, bs := range pkgs {
			edges := r.UpgradeEdges(pkg)
			for _, b := range bs {
				v, ok := r.BundleVersion(pkg, b.Name)
				got, listed := edges[b.Name]
				if !ok {
					if listed {
						t.Errorf("%s: %s has no readable version but edges %v", dir, b.Name, got)
					}
					continue
				}
				ans := r.Resolve(resolve.Query{Package: pkg, Installed: &resolve.Installed{Name: b.Name, Version: v}})
				if want := withoutSelf(ans.Successors, b.Name); !slices.Equal(append([]string{}, got...), want) {
					t.Errorf("%s: edges from %s: got %v, Resolve's successors %v", dir, b.Name, got, want)
				}
				bundles++
			}
		}
	}
	t.Logf("%d bundles of %d catalogs", bundles, len(dirs))
}
