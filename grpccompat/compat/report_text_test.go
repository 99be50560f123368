package compat

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/source"
)

const s5kIndex = "../../../shared/bench/s5k/index.db.gz"

// The 5,000-bundle benchmark catalog with one provided API dropped from one bundle of its
// migrated FBC: every report format is valid UTF-8 and names the dropped API by field path, in
// the calls a client would see it in.
func TestS5KDroppedProvidedAPIReport(t *testing.T) {
	in, err := os.Open(s5kIndex)
	if err != nil {
		t.Skipf("benchmark index not found at %s: %v", s5kIndex, err)
	}
	defer in.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	migrated := filepath.Join(dir, "fbc")
	if _, err := convert.MigratePath(t.Context(), db, migrated, convert.MigrateOptions{}, source.Options{}); err != nil {
		t.Fatal(err)
	}
	const pkg, bundle = "pkg0000-operator", "pkg0000-operator.v0.1.1"
	pkgFile := filepath.Join(migrated, pkg, "catalog.json")
	c, err := fbc.Load(pkgFile)
	if err != nil {
		t.Fatal(err)
	}
	b := findBundle(t, c, bundle)
	dropped := `{"group":"pkg0000.example.com","kind":"Kind1","version":"v1"}`
	before := len(b.Properties)
	b.Properties = slices.DeleteFunc(b.Properties, func(p fbc.Property) bool {
		return p.Type == "olm.gvk" && compactRequest(p.Value) == dropped
	})
	if len(b.Properties) != before-1 {
		t.Fatalf("bundle %s has no olm.gvk %s", bundle, dropped)
	}
	var edited bytes.Buffer
	if err := fbc.Write(&edited, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkgFile, edited.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	gvk := `{"group":"pkg0000.example.com","version":"v1","kind":"Kind1"}`
	plan := Plan{
		{ID: "1", Method: ListBundles, Request: []byte(`{}`)},
		{ID: "2", Method: GetBundle, Request: []byte(`{"pkgName":"pkg0000-operator","channelName":"stable","csvName":"pkg0000-operator.v0.1.1"}`)},
		{ID: "3", Method: GetBundle, Request: []byte(`{"pkgName":"pkg0000-operator","channelName":"stable","csvName":"pkg0000-operator.v0.1.2"}`)},
		{ID: "4", Method: GetChannelEntriesThatProvide, Request: []byte(gvk)},
		{ID: "5", Method: GetDefaultBundleThatProvides, Request: []byte(gvk)},
	}
	r, err := Check(t.Context(), openCatalogTarget(t, db), openCatalogTarget(t, migrated), Options{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "different" || r.Total.Different != 3 {
		t.Fatalf("want 3 differing calls: %s", r.Summary())
	}
	all := checkReportText(t, r)
	for _, want := range []string{
		`ListBundles[pkg0000-operator/stable/pkg0000-operator.v0.1.1].providedApis[1]: left {"group":"pkg0000.example.com","version":"v1","kind":"Kind1"} right (absent)`,
		`GetBundle(pkg0000-operator, stable, pkg0000-operator.v0.1.1).properties[2]: left {"type":"olm.gvk","value":"{\"group\":\"pkg0000.example.com\",\"kind\":\"Kind1\",\"version\":\"v1\"}"} right (absent)`,
		`GetChannelEntriesThatProvide(pkg0000.example.com, v1, Kind1)[pkg0000-operator/fast/pkg0000-operator.v0.1.1]: left {"packageName":"pkg0000-operator","channelName":"fast","bundleName":"pkg0000-operator.v0.1.1"} right (absent)`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no difference line %s in:\n%s", want, all)
		}
	}
	// providedApis and properties of the bundle in each of its 6 channels (ListBundles) and in one
	// (GetBundle), and its 6 channel entries.
	if n := strings.Count(all, "\n"); n != 2*6+2+6 {
		t.Errorf("%d difference lines, want 20:\n%s", n, all)
	}
}

// Two runs of the same comparison write byte-identical reports in every format, however the
// calls are scheduled.
func TestReportsAreStable(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-infrawatch-05")
	db := openServable(t, filepath.Join(dir, "input.db"))
	edited := openCatalogTarget(t, editedCopy(t, filepath.Join(dir, "migrate"), func(c *fbc.Catalog) {
		b := findBundle(t, c, sgw+".v2.1.0")
		b.Properties = slices.DeleteFunc(b.Properties, func(p fbc.Property) bool { return p.Type == "olm.gvk" })
		editCSV(t, b, func(csv map[string]any) { csv["metadata"].(map[string]any)["name"] = "renamed\u00a0é" })
		c.Packages[slices.IndexFunc(c.Packages, func(p fbc.Package) bool { return p.Name == sgw })].DefaultChannel = "latest"
	}))
	var first map[string][]byte
	for _, concurrency := range []int{1, 16, 3} {
		r, err := Check(t.Context(), db, edited, Options{Concurrency: concurrency})
		if err != nil {
			t.Fatal(err)
		}
		r.Duration = 0
		checkReportText(t, r)
		got := map[string][]byte{}
		for _, format := range []string{FormatText, FormatJSON, FormatMarkdown} {
			var b bytes.Buffer
			if err := r.Write(&b, format); err != nil {
				t.Fatal(err)
			}
			got[format] = b.Bytes()
		}
		if first == nil {
			first = got
			if !strings.Contains(string(got[FormatText]), `$.metadata.name: left "smart-gateway-operator.v2.1.0" right "renamed\u00a0é"`) {
				t.Errorf("the changed CSV name is not shown escaped:\n%s", got[FormatText])
			}
			continue
		}
		for format, b := range got {
			if !bytes.Equal(b, first[format]) {
				t.Errorf("%s report differs between runs (concurrency %d):\n%s\n---\n%s", format, concurrency, first[format], b)
			}
		}
	}
}
