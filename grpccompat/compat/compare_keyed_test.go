package compat

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// Comparing ListBundles key by key gives the verdict, the normalizations and the differing
// bundles that comparing the two whole streams gives, on every corpus index.db against opm's
// migrate output of it, and on pairs where bundles differ.
func TestKeyedListBundlesAgreesWithWholeStreams(t *testing.T) {
	plan := Plan{{ID: "0001", Method: listBundlesMethod, Request: []byte(`{}`)}}
	check := func(t *testing.T, left, right Target, whole bool) *Report {
		t.Helper()
		r, err := Check(context.Background(), left, right, Options{Plan: plan, wholeStreams: whole})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	pairs := [][2]string{}
	for _, dir := range sqliteCases(t, true) {
		pairs = append(pairs, [2]string{filepath.Join(dir, "input.db"), filepath.Join(dir, "migrate")})
	}
	// Different catalogs: bundles only on one side and bundles that differ.
	pairs = append(pairs, [2]string{
		filepath.Join(corpus(t), "sqlite", "community-5ops-replaces", "input.db"),
		filepath.Join(corpus(t), "sqlite", "community-5ops-semver", "migrate"),
	})
	for _, p := range pairs {
		t.Run(filepath.Base(filepath.Dir(p[0]))+"-vs-"+filepath.Base(filepath.Dir(p[1])), func(t *testing.T) {
			left, right := openServable(t, p[0]), openCatalogTarget(t, p[1])
			keyed, whole := check(t, left, right, false), check(t, left, right, true)
			if keyed.Verdict() != whole.Verdict() || keyed.Total != whole.Total {
				t.Errorf("keyed %s %+v, whole %s %+v", keyed.Verdict(), keyed.Total, whole.Verdict(), whole.Total)
			}
			applied := func(r *Report) []string {
				var out []string
				for _, n := range r.Normalizations {
					if n.Calls > 0 {
						out = append(out, n.Name)
					}
				}
				return out
			}
			if !slices.Equal(applied(keyed), applied(whole)) {
				t.Errorf("normalizations applied: keyed %v, whole %v", applied(keyed), applied(whole))
			}
			if (len(keyed.Differences) == 0) != (len(whole.Differences) == 0) {
				t.Errorf("differences: keyed %d, whole %d", len(keyed.Differences), len(whole.Differences))
			}
		})
	}
}
