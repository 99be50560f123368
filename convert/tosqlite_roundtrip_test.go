package convert

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// readBack converts an index.db to FBC with olmcat's index.db → FBC direction.
func readBack(t testing.TB, path string) (*fbc.Catalog, *tofbc.Report) {
	t.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := &fbc.Catalog{}
	r, err := tofbc.Convert(context.Background(), db, tofbc.Options{}, func(_ string, c *fbc.Catalog) error {
		out.Packages = append(out.Packages, c.Packages...)
		out.Channels = append(out.Channels, c.Channels...)
		out.Bundles = append(out.Bundles, c.Bundles...)
		out.Deprecations = append(out.Deprecations, c.Deprecations...)
		out.Others = append(out.Others, c.Others...)
		return nil
	})
	if err != nil {
		t.Fatalf("FromSQLite(%s): %v", path, err)
	}
	return out, r
}

func catalogBytes(t testing.TB, c *fbc.Catalog) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRoundTripOpmMigrateOutputs: for every FBC opm migrate wrote, FBC → index.db → FBC gives the
// same bytes back (nothing is lost: those catalogs hold only what an index.db holds), and the
// report names no loss.
func TestRoundTripOpmMigrateOutputs(t *testing.T) {
	for _, dir := range sqliteCasesWithMigrate(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			orig := loadCatalog(t, filepath.Join(dir, "migrate"))
			db, report := writeDB(t, orig, ToSQLiteOptions{})
			if len(report.Losses) > 0 {
				t.Errorf("losses reported for a catalog opm migrate wrote: %v", report.Losses)
			}
			back, _ := readBack(t, db)
			if diff := cmp.Diff(string(catalogBytes(t, orig)), string(catalogBytes(t, back))); diff != "" {
				t.Errorf("FBC → index.db → FBC differs (-original +round trip):\n%.4000s", diff)
			}
		})
	}
}

// TestRoundTripFixpoint: index.db → FBC → index.db → FBC gives the first FBC again, byte for
// byte, starting from every conformance index.db and from the index.db written for every
// conformance FBC. The one thing allowed to differ is what the second index.db reports as lost:
// olmcat's index.db → FBC turns olm.deprecated bundles into olm.deprecations entries, which an
// index.db cannot hold.
func TestRoundTripFixpoint(t *testing.T) {
	requireConformance(t)
	var starts []string
	dbs, _ := filepath.Glob(filepath.Join(toSQLiteConformance, "sqlite", "*", "input.db"))
	starts = append(starts, dbs...)
	fbcs, _ := filepath.Glob(filepath.Join(toSQLiteConformance, "fbc", "*", "catalog"))
	for _, dir := range fbcs {
		starts = append(starts, dir)
	}
	for _, start := range starts {
		name := filepath.Base(filepath.Dir(start))
		t.Run(name, func(t *testing.T) {
			db := start
			if filepath.Base(start) == "catalog" {
				db, _ = writeDB(t, loadCatalog(t, start), ToSQLiteOptions{})
			}
			first, _ := readBack(t, db)
			db2, report := writeDB(t, first, ToSQLiteOptions{})
			second, _ := readBack(t, db2)
			for _, l := range report.Losses {
				if l.Kind != KindDeprecation {
					t.Errorf("unexpected loss on the second pass: %s", l)
				}
			}
			first = withoutLostDeprecations(first, report)
			if diff := cmp.Diff(string(catalogBytes(t, first)), string(catalogBytes(t, second))); diff != "" {
				t.Errorf("second pass differs (-first +second):\n%.4000s", diff)
			}
		})
	}
}

// withoutLostDeprecations drops from c the deprecation entries the report names as lost, and the
// olm.deprecations blobs left empty.
func withoutLostDeprecations(c *fbc.Catalog, r *SQLiteReport) *fbc.Catalog {
	lost := map[[3]string]bool{}
	for _, l := range r.Losses {
		if l.Kind == KindDeprecation {
			lost[[3]string{l.Package, l.Channel, l.Bundle}] = true
		}
	}
	out := *c
	out.Deprecations = nil
	for _, d := range c.Deprecations {
		kept := d
		kept.Entries = nil
		for _, e := range d.Entries {
			key := [3]string{d.Package, "", ""}
			switch e.Reference.Schema {
			case fbc.SchemaChannel:
				key[1] = e.Reference.Name
			case fbc.SchemaBundle:
				key[2] = e.Reference.Name
			}
			if !lost[key] {
				kept.Entries = append(kept.Entries, e)
			}
		}
		if len(kept.Entries) > 0 {
			out.Deprecations = append(out.Deprecations, kept)
		}
	}
	return &out
}
