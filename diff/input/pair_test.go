package input_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
)

// Opening the same catalog as both sides keeps one copy of every property value, and compares clean.
func TestOpenPairSharesEqualContent(t *testing.T) {
	if _, err := os.Stat(jaeger); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", jaeger, err)
	}
	oldSide, newSide, err := input.OpenPair(context.Background(), jaeger, jaeger, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared, values := 0, 0
	for i := range newSide.Catalog.Bundles {
		ob, nb := oldSide.Catalog.Bundles[i], newSide.Catalog.Bundles[i]
		for j := range nb.Properties {
			values++
			if unsafe.SliceData(ob.Properties[j].Value) == unsafe.SliceData(nb.Properties[j].Value) {
				shared++
			}
		}
	}
	if values == 0 || shared != values {
		t.Errorf("%d of %d property values shared", shared, values)
	}
	if r := diff.Compare(oldSide, newSide); len(r.Findings) != 0 {
		t.Errorf("findings: %+v", r.Findings)
	}
	if _, _, err := input.OpenPair(context.Background(), jaeger, jaeger+"-missing", input.Options{}); err == nil {
		t.Error("a missing new side is an error")
	}
}

// A bundle blob that does not decode, the same in both files: one side decodes it, and both report
// the load error at their own file.
func TestOpenPairSharedLoadError(t *testing.T) {
	const catalog = `{"schema":"olm.package","name":"p","defaultChannel":"c"}
{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"p.v1"},{"name":"p.v2","replaces":"p.v1"}]}
{"schema":"olm.bundle","name":"p.v1","package":"p","image":"i1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
{"schema":"olm.bundle","name":"p.v2","package":"p","image":"i2","properties":"not a list"}
`
	dir := t.TempDir()
	oldPath, newPath := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	for _, p := range []string{oldPath, newPath} {
		if err := os.WriteFile(p, []byte(catalog), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldSide, newSide, err := input.OpenPair(context.Background(), oldPath, newPath, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*diff.Side{oldSide, newSide} {
		if len(s.Catalog.Bundles) != 1 || s.Catalog.Bundles[0].Name != "p.v1" || s.Catalog.Bundles[0].Loc.File != s.Source {
			t.Errorf("%s: bundles %+v", s.Source, s.Catalog.Bundles)
		}
		if len(s.Problems) != 1 || s.Problems[0].File != s.Source || s.Problems[0].Line != 4 || s.Problems[0].Bundle != "p.v2" {
			t.Errorf("%s: problems %+v", s.Source, s.Problems)
		}
	}
	r := diff.Compare(oldSide, newSide)
	for _, f := range r.Findings {
		if f.Kind != diff.ProblemPersists {
			t.Errorf("finding %s: %s", f.Kind, f.Message)
		}
	}
}
