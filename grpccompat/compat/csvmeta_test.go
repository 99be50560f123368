package compat

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// FBCs made by opm migrate --migrate-level bundle-object-to-csv-metadata serve synthesized CSVs:
// with csv-metadata they answer like the index.db and like the plain migration; without it, or
// with a CSV field changed, they do not.
func TestCSVMetadataMigration(t *testing.T) {
	// The two smallest cases with such an output (the others take seconds each; they are equal
	// too: olmcat compat input.db migrate-csvmeta).
	var cases []string
	for _, name := range []string{"real-foo-index-v0.2.0", "kube-green-replaces"} {
		cases = append(cases, filepath.Join(corpus(t), "sqlite", name, "migrate-csvmeta"))
	}
	withoutCSVMeta, err := ParseNormalizations("all,-csv-metadata")
	if err != nil {
		t.Fatal(err)
	}
	for _, csvmetaDir := range cases {
		dir := filepath.Dir(csvmetaDir)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			db := openServable(t, filepath.Join(dir, "input.db"))
			plain := openCatalogTarget(t, filepath.Join(dir, "migrate"))
			csvmeta := openCatalogTarget(t, csvmetaDir)
			for _, left := range []Target{db, plain} {
				r := TestParity(t, left, csvmeta, Options{})
				if !slices.ContainsFunc(r.Normalizations, func(n AppliedNormalization) bool { return n.Name == "csv-metadata" && n.Calls > 0 }) {
					t.Errorf("%s: csv-metadata was not needed: %s", left, r.Summary())
				}
				if r, err := Check(t.Context(), left, csvmeta, Options{Normalize: withoutCSVMeta}); err != nil || r.Equal() {
					t.Errorf("%s without csv-metadata: %v, %s", left, err, r.Summary())
				}
			}
			edited := openCatalogTarget(t, editedCopy(t, csvmetaDir, func(c *fbc.Catalog) {
				for i := range c.Bundles {
					for j, p := range c.Bundles[i].Properties {
						if p.Type != "olm.csv.metadata" {
							continue
						}
						var m map[string]any
						if err := json.Unmarshal(p.Value, &m); err != nil {
							t.Fatal(err)
						}
						m["displayName"] = "Changed"
						c.Bundles[i].Properties[j].Value, _ = json.Marshal(m)
					}
				}
			}))
			r, err := Check(t.Context(), db, edited, Options{})
			if err != nil || r.Equal() || !slices.ContainsFunc(r.Methods, func(m MethodStats) bool { return m.Method == GetBundle && m.Different > 0 }) {
				t.Errorf("changed displayName not caught: %v, %s", err, r.Summary())
			}
		})
	}
}
