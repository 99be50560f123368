package csvmeta

import (
	"slices"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// Migrate applies opm's bundle-object-to-csv-metadata migration to a bundle whose CSV is csvJSON:
// the bundle loses all its olm.bundle.object properties and gets one olm.csv.metadata made from
// the CSV. A bundle without an image, without a CSV or that already has olm.csv.metadata is left
// as it is, as opm leaves it. An error means the CSV does not decode; the bundle is unchanged.
func Migrate(b *fbc.Bundle, csvJSON []byte) error {
	if b.Image == "" || len(csvJSON) == 0 {
		return nil
	}
	if slices.ContainsFunc(b.Properties, func(p fbc.Property) bool { return p.Type == property.TypeCSVMetadata }) {
		return nil
	}
	meta, err := FromCSV(csvJSON)
	if err != nil {
		return err
	}
	props := slices.DeleteFunc(b.Properties, func(p fbc.Property) bool { return p.Type == property.TypeBundleObject })
	b.Properties = append(props, property.Build(property.TypeCSVMetadata, meta))
	return nil
}
