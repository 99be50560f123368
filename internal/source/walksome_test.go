package source

import (
	"context"
	"slices"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// TestWalkSomePackages: keep sees every package of the catalog and only the packages it accepts
// are handed over, from an index.db and from an FBC directory alike.
func TestWalkSomePackages(t *testing.T) {
	for _, ref := range []string{"../../fixtures/index.db", "../../fixtures/catalog"} {
		src, err := Open(context.Background(), ref, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		if err := src.WalkPackages(context.Background(), func(pkg string, _ *fbc.Catalog) error {
			if pkg != "" {
				all = append(all, pkg)
			}
			return nil
		}); err != nil || len(all) < 2 {
			t.Fatalf("%s: %v, packages %v", ref, err, all)
		}
		var seen, handed []string
		err = src.WalkSomePackages(context.Background(), func(pkg string) bool {
			seen = append(seen, pkg)
			return pkg == all[1]
		}, func(pkg string, c *fbc.Catalog) error {
			if pkg != "" {
				handed = append(handed, pkg)
				if len(c.Bundles) == 0 {
					t.Errorf("%s: package %s handed over without its bundles", ref, pkg)
				}
			}
			return nil
		})
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(seen)
		if !slices.Equal(seen, all) || !slices.Equal(handed, all[1:2]) {
			t.Errorf("%s: keep saw %v (want %v), handed %v (want %s)", ref, seen, all, handed, all[1])
		}
	}
}
