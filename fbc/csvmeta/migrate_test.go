package csvmeta

import (
	"encoding/json"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// TestMigrate: an image bundle with a CSV trades its objects for one olm.csv.metadata; a bundle
// without an image, without a CSV or that has olm.csv.metadata already is left as it is.
func TestMigrate(t *testing.T) {
	csv := []byte(`{"kind":"ClusterServiceVersion","metadata":{"name":"p.v1"},"spec":{"displayName":"P","description":"d & <e>"}}`)
	object := property.Build(property.TypeBundleObject, property.BundleObject{Data: csv})
	pkg := property.Build(property.TypePackage, property.Package{PackageName: "p", Version: "1.0.0"})
	newBundle := func(image string, props ...fbc.Property) fbc.Bundle {
		return fbc.Bundle{Name: "p.v1", Image: image, Properties: props}
	}

	b := newBundle("r/p:1", pkg, object)
	if err := Migrate(&b, csv); err != nil {
		t.Fatal(err)
	}
	if len(b.Properties) != 2 || b.Properties[0].Type != property.TypePackage || b.Properties[1].Type != property.TypeCSVMetadata {
		t.Fatalf("properties %+v", b.Properties)
	}
	var meta Metadata
	if err := json.Unmarshal(b.Properties[1].Value, &meta); err != nil || meta.DisplayName != "P" || meta.Description != "d & <e>" {
		t.Errorf("olm.csv.metadata %s (%v)", b.Properties[1].Value, err)
	}

	for name, b := range map[string]fbc.Bundle{
		"no image":     newBundle("", pkg, object),
		"has metadata": newBundle("r/p:1", pkg, object, property.Build(property.TypeCSVMetadata, Metadata{})),
	} {
		before := len(b.Properties)
		if err := Migrate(&b, csv); err != nil || len(b.Properties) != before {
			t.Errorf("%s: %d properties, was %d (%v)", name, len(b.Properties), before, err)
		}
	}
	b = newBundle("r/p:1", pkg, object)
	if err := Migrate(&b, nil); err != nil || len(b.Properties) != 2 || b.Properties[1].Type != property.TypeBundleObject {
		t.Errorf("no CSV: %+v (%v)", b.Properties, err)
	}
	if err := Migrate(&b, []byte(`{"spec": 3}`)); err == nil {
		t.Error("a CSV that does not decode: no error")
	}
}
