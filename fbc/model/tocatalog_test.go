package model

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

const toCatalogCorpus = "../../../shared/conformance"

func writeJSON(t *testing.T, c *fbc.Catalog) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestToCatalogRoundTrip: model -> blobs gives the catalog back, byte for byte once channel entries
// and deprecation entries are in ToCatalog's order (the model does not keep the original order).
func TestToCatalogRoundTrip(t *testing.T) {
	for _, rel := range []string{
		"sqlite/community-5ops-replaces/migrate",
		"sqlite/opm-testdata-bundles-substitutesfor/migrate",
		"fbc/deprecations-konflux/catalog",
		"fbc/community-v4.20-csvmetadata-subset/catalog",
		"fbc/custom-schema-blobs/catalog",
	} {
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			dir := filepath.Join(toCatalogCorpus, rel)
			if _, err := os.Stat(dir); err != nil {
				t.Skipf("conformance catalog %s absent", dir)
			}
			orig, err := fbc.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			m, issues := FromCatalog(orig)
			if err := issues.Err(); err != nil {
				t.Fatal(err)
			}
			rank := map[string]int{fbc.SchemaPackage: 0, fbc.SchemaChannel: 1, fbc.SchemaBundle: 2}
			for i := range orig.Deprecations {
				slices.SortStableFunc(orig.Deprecations[i].Entries, func(a, b fbc.DeprecationEntry) int {
					if d := rank[a.Reference.Schema] - rank[b.Reference.Schema]; d != 0 {
						return d
					}
					return strings.Compare(a.Reference.Name, b.Reference.Name)
				})
			}
			for i := range orig.Channels {
				slices.SortFunc(orig.Channels[i].Entries, func(a, b fbc.ChannelEntry) int { return strings.Compare(a.Name, b.Name) })
			}
			if got, want := writeJSON(t, ToCatalog(m)), writeJSON(t, orig); !bytes.Equal(got, want) {
				t.Errorf("ToCatalog(FromCatalog(c)) differs from c")
			}
		})
	}
}
