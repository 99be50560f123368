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
	"github.com/olmcat/olmcat/fbc/resolve"
)

const conformanceDir = "../../../shared/conformance"

// recorded is one line of olmv1/*/resolve.jsonl: a query and OLM v1's own answer.
type recorded struct {
	resolve.Query
	Tag                    string   `json:"tag"`
	Bundle                 string   `json:"bundle"`
	BundleVersion          string   `json:"bundleVersion"`
	Error                  string   `json:"error"`
	PickedBeforeValidation string   `json:"pickedBeforeValidation"`
	Successors             []string `json:"successors"`
}

// TestConformanceOLMv1 runs every query operator-controller answered (recorded from its code at
// df2c201d) through the resolver, each catalog opened as olmcat resolve opens it, and compares the
// pick, its version, the error text and the successors exactly.
func TestConformanceOLMv1(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "olmv1", "*", "resolve.jsonl"))
	if len(dirs) == 0 {
		t.Skipf("OLM v1 recordings not found at %s/olmv1 (run with /work/shared present)", conformanceDir)
	}
	total, errors, upgrades := 0, 0, 0
	for _, file := range dirs {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			side, err := input.Open(context.Background(), filepath.Join(conformanceDir, "fbc", name, "catalog"), input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(side.Problems) > 0 {
				t.Fatalf("catalog %s does not load cleanly: %v", name, side.Problems)
			}
			r, err := resolve.New(side.Catalog)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<24)
			for line := 1; sc.Scan(); line++ {
				var rec recorded
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatalf("%s:%d: %v", file, line, err)
				}
				total++
				if rec.Error != "" {
					errors++
				}
				if rec.Installed != nil {
					upgrades++
					// the installed version is what olmcat resolve --installed looks up in the catalog
					if v, ok := r.BundleVersion(rec.Package, rec.Installed.Name); !ok || v != rec.Installed.Version {
						t.Errorf("%s:%d: version of installed %s: got %q (found %v), OLM v1 had %q", file, line, rec.Installed.Name, v, ok, rec.Installed.Version)
					}
				}
				got := r.Resolve(rec.Query)
				want := resolve.Answer{Bundle: rec.Bundle, BundleVersion: rec.BundleVersion, Error: rec.Error, Successors: rec.Successors}
				if rec.Error != "" {
					want.PickedBeforeValidation = rec.PickedBeforeValidation
				}
				if got.Bundle != want.Bundle || got.BundleVersion != want.BundleVersion || got.Error != want.Error ||
					got.PickedBeforeValidation != want.PickedBeforeValidation || !slices.Equal(got.Successors, want.Successors) ||
					(got.Successors == nil) != (want.Successors == nil) {
					t.Errorf("%s:%d (%s): %s\n got  %+v\n want %+v", file, line, rec.Tag, sc.Text()[:min(len(sc.Text()), 300)], got, want)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Logf("%d recorded queries (%d refusals, %d with a bundle installed)", total, errors, upgrades)
	if total == 0 || errors == 0 || upgrades == 0 {
		t.Fatalf("the recordings no longer cover picks, refusals and upgrades (%d/%d/%d)", total, errors, upgrades)
	}
}
