package convert

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// TestDeferredBundlesBuildAsConverted converts every index of the corpus, every broken index of
// edgeCases and the demo index at every schema version with tofbc.Options.DeferBundles, builds the
// bundles (all at once as each package comes, and one at a time in reverse order once the
// conversion is over) and requires the very catalog of a
// conversion without it, at both migrate levels. Where the file allows deferring (schema 9 and
// later), the bundles must come unbuilt.
func TestDeferredBundlesBuildAsConverted(t *testing.T) {
	type index struct{ name, path string }
	var indexes []index
	if entries, err := filepath.Glob(filepath.Join(sqliteConformanceDir, "*", "input.db")); err == nil {
		for _, path := range entries {
			indexes = append(indexes, index{filepath.Base(filepath.Dir(path)), path})
		}
	}
	if len(indexes) == 0 {
		t.Logf("conformance corpus not found at %s: only the generated indexes are checked", sqliteConformanceDir)
	}
	for _, c := range edgeCases {
		path := buildLegacyIndex(t, 13)
		execSQL(t, path, c.edit...)
		indexes = append(indexes, index{"edge/" + c.name, path})
	}
	for _, version := range []int{0, 5, 8, 9, 12, 13} {
		path := buildLegacyIndex(t, version)
		indexes = append(indexes, index{"schema/" + filepath.Base(path), path})
	}
	for _, ix := range indexes {
		for _, level := range []tofbc.MigrateLevel{tofbc.LevelNone, tofbc.LevelCSVMetadata} {
			t.Run(ix.name+"/"+string(level), func(t *testing.T) {
				want, deferrable := convertForTest(t, ix.path, tofbc.Options{MigrateLevel: level}, false, nil)
				for _, oneByOne := range []bool{false, true} {
					got, _ := convertForTest(t, ix.path, tofbc.Options{MigrateLevel: level, DeferBundles: true}, oneByOne, func(c *fbc.Catalog) {
						unbuilt := 0
						for i := range c.Bundles {
							if c.Bundles[i].Deferred() {
								unbuilt++
							}
						}
						if deferrable && unbuilt != len(c.Bundles) {
							t.Errorf("%d of %d bundles came unbuilt from a schema %s file", unbuilt, len(c.Bundles), "9+")
						}
						if !deferrable && unbuilt > 0 {
							t.Errorf("%d bundles came unbuilt from a file before schema 9", unbuilt)
						}
						if oneByOne {
							for i := len(c.Bundles) - 1; i >= 0; i-- {
								if err := c.Bundles[i].Decode(); err != nil {
									t.Fatal(err)
								}
							}
							return
						}
						all := make([]*fbc.Bundle, len(c.Bundles))
						for i := range c.Bundles {
							all[i] = &c.Bundles[i]
						}
						if err := fbc.DecodeBundles(all); err != nil {
							t.Fatal(err)
						}
					})
					if len(got) != len(want) {
						t.Fatalf("%d packages deferred, %d converted", len(got), len(want))
					}
					for i := range want {
						if !reflect.DeepEqual(got[i], want[i]) {
							t.Errorf("package %s (built one by one: %v) differs from its conversion:\n got  %+v\n want %+v", want[i].Packages[0].Name, oneByOne, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

// convertForTest converts the index, calling decode (if set) on each package's catalog as it
// comes, or once the conversion is over (late), and reports whether the file allows deferring bundles.
func convertForTest(t *testing.T, path string, opts tofbc.Options, late bool, decode func(*fbc.Catalog)) ([]*fbc.Catalog, bool) {
	t.Helper()
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []*fbc.Catalog
	if _, err := tofbc.Convert(context.Background(), db, opts, func(_ string, c *fbc.Catalog) error {
		if decode != nil && !late {
			decode(c)
		}
		out = append(out, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if decode != nil && late {
		for _, c := range out {
			decode(c)
		}
	}
	return out, db.ContentsDeferrable()
}
