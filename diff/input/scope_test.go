package input

import (
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

func TestScopeToTemplateKeepsTheTemplatesPackages(t *testing.T) {
	full, err := fbc.Load("../../fixtures/catalog")
	if err != nil {
		t.Fatal(err)
	}
	one, err := fbc.Load("../../fixtures/catalog/operator-001")
	if err != nil {
		t.Fatal(err)
	}
	problems := model.Issues{{Package: "operator-000", Message: "another package's"}, {Message: "the input's"}, {Package: "operator-001", Message: "the template package's"}}
	catalog := &diff.Side{Source: "catalog/", Format: FormatFBC, Catalog: full, Problems: problems}
	tmpl := &diff.Side{Source: "v4.18.yaml", Format: "git/template", Catalog: one}

	other, left := ScopeToTemplate(tmpl, catalog)
	if other != catalog || len(left) != 2 || left[0] != "operator-000" || left[1] != "operator-002" {
		t.Fatalf("left %v, want operator-000 and operator-002 of the catalog side", left)
	}
	for _, pkg := range packagesOf(catalog.Catalog) {
		if pkg != "operator-001" {
			t.Errorf("the catalog side still holds a blob of package %q", pkg)
		}
	}
	if len(catalog.Catalog.Bundles) != len(one.Bundles) || len(catalog.Catalog.Channels) != len(one.Channels) {
		t.Errorf("the catalog side has %d bundles, %d channels; the template's package %d, %d",
			len(catalog.Catalog.Bundles), len(catalog.Catalog.Channels), len(one.Bundles), len(one.Channels))
	}
	if len(catalog.Problems) != 2 || catalog.Problems[0].Message != "the input's" {
		t.Errorf("problems kept: %v, want the input's and the template package's", catalog.Problems)
	}

	// Two templates, two catalogs, or a template of no package, are compared whole.
	empty := &diff.Side{Format: "template", Catalog: &fbc.Catalog{}}
	for _, pair := range [][2]*diff.Side{{tmpl, {Format: "template", Catalog: full}}, {{Format: "sqlite", Catalog: full}, {Format: "image/fbc", Catalog: one}}, {empty, {Format: "fbc", Catalog: full}}} {
		if _, left := ScopeToTemplate(pair[0], pair[1]); left != nil {
			t.Errorf("%s vs %s: left out %v", pair[0].Format, pair[1].Format, left)
		}
	}
}
