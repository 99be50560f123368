package template_test

import (
	"context"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

// iconCatalog renders bundles from a catalog and knows the icon of its package, as a --bundles-from
// catalog does.
type iconCatalog struct {
	*template.CatalogRenderer
	icon  *fbc.Icon
	asked []string
}

func (c *iconCatalog) PackageIcon(pkg string) (*fbc.Icon, bool) {
	c.asked = append(c.asked, pkg)
	return c.icon, c.icon != nil
}

// A semver template whose bundles come in olm.csv.metadata form (no CSV to read) gets the
// package's description from the default channel head's metadata and its icon from the renderer,
// as opm gets both from the head's CSV.
func TestSemverPackageFromCSVMetadata(t *testing.T) {
	var stream strings.Builder
	doc := "schema: olm.semver\nstable:\n  bundles:\n"
	for _, v := range []string{"1.0.0", "1.1.0"} {
		b := strings.TrimSuffix(bundleJSON("p.v"+v, v), "]}") +
			`,{"type":"olm.csv.metadata","value":{"description":"the operator, ` + v + `","displayName":"P"}}]}`
		stream.WriteString(b + "\n")
		doc += "  - image: r/p:" + v + "\n"
	}
	cat, err := fbc.LoadReader(strings.NewReader(stream.String()), "bundles.json")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.Parse("", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	icon := &fbc.Icon{Data: []byte("<svg/>"), MediaType: "image/svg+xml"}
	r := &iconCatalog{CatalogRenderer: template.NewCatalogRenderer(cat), icon: icon}
	out, err := template.Render(context.Background(), tmpl, r, template.Options{CSVMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	pkg := out.Packages[0]
	if pkg.Description != "the operator, 1.1.0" {
		t.Errorf("description %q, want the head's (1.1.0)", pkg.Description)
	}
	if pkg.Icon == nil || string(pkg.Icon.Data) != "<svg/>" || strings.Join(r.asked, ",") != "p" {
		t.Errorf("icon %+v (asked for %v), want the renderer's for package p", pkg.Icon, r.asked)
	}
	// A renderer that knows no icons: the description all the same, no icon.
	out, err = template.Render(context.Background(), tmpl, template.NewCatalogRenderer(cat), template.Options{CSVMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	if pkg := out.Packages[0]; pkg.Description != "the operator, 1.1.0" || pkg.Icon != nil {
		t.Errorf("without icons: %+v", pkg)
	}
}
