package compat_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/grpccompat/compat"
)

const conformanceRoot = "../../../shared/conformance"

// The parity proof of `olmcat migrate --to sqlite`: for every conformance catalog, the index.db
// written from it and the catalog itself, both served in-process, answer every call of the
// exhaustive plan the same up to the named normalizations. Where the loss report names something
// the index.db cannot hold, the differing calls must be those the loss explains.
func TestWrittenIndexServesLikeItsCatalog(t *testing.T) {
	if _, err := os.Stat(conformanceRoot); err != nil {
		t.Skipf("conformance corpus not found at %s: %v", conformanceRoot, err)
	}
	catalogs, _ := filepath.Glob(filepath.Join(conformanceRoot, "fbc", "*", "catalog"))
	migrated, _ := filepath.Glob(filepath.Join(conformanceRoot, "sqlite", "*", "migrate"))
	for _, catalog := range append(catalogs, migrated...) {
		name := filepath.Base(filepath.Dir(catalog))
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := filepath.Join(t.TempDir(), "index.db")
			rep, err := convert.ToSQLiteFromPath(ctx, catalog, db, convert.ToSQLiteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			left, err := compat.OpenTarget(ctx, db, compat.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer left.Close()
			right, err := compat.OpenTarget(ctx, catalog, compat.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer right.Close()
			r, err := compat.Check(ctx, left, right, compat.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !r.CrossKind || r.Total.Calls < 10 || len(r.Errors) > 0 {
				t.Fatalf("compared %d calls (cross-kind %v, %d errors): the written index.db was not served as one", r.Total.Calls, r.CrossKind, len(r.Errors))
			}
			if r.Equal() {
				return
			}
			kinds := map[string]bool{}
			for _, l := range rep.Losses {
				kinds[l.Kind] = true
			}
			for _, d := range r.Differences {
				if !explainedByLoss(d.Method, kinds) {
					var b strings.Builder
					r.WriteText(&b)
					t.Fatalf("%s differs and no reported loss explains it (losses: %v):\n%s", d.Method, kinds, b.String())
				}
			}
		})
	}
}

// explainedByLoss says whether a difference in method can come from a reported loss: deprecation
// messages only travel in GetPackage and bundle answers; the others change nothing served.
func explainedByLoss(method string, losses map[string]bool) bool {
	if losses["deprecation"] {
		switch {
		case strings.HasSuffix(method, "GetPackage"), strings.Contains(method, "Bundle"):
			return true
		}
	}
	return false
}
