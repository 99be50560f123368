package tofbc

import (
	"slices"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
)

// csvMetadata applies opm's bundle-object-to-csv-metadata migration to a bundle: an image bundle with
// a CSV loses all its olm.bundle.object properties and gets one olm.csv.metadata made from the CSV.
// Bundles without an image or without a CSV keep their objects, as in opm.
func (pc *packageConverter) csvMetadata(b *bundleBuild) {
	if b.blob.Image == "" || len(b.csvJSON) == 0 {
		return
	}
	if slices.ContainsFunc(b.blob.Properties, func(p fbc.Property) bool { return p.Type == property.TypeCSVMetadata }) {
		return
	}
	meta, err := csvmeta.FromCSV(b.csvJSON)
	if err != nil {
		pc.depart(Departure{Code: CSVMetadataUnavailable, Bundle: b.name,
			Opm:    "fails to decode the ClusterServiceVersion for olm.csv.metadata: " + err.Error(),
			Olmcat: "keeps the bundle's olm.bundle.object properties"})
		return
	}
	props := slices.DeleteFunc(b.blob.Properties, func(p fbc.Property) bool { return p.Type == property.TypeBundleObject })
	b.blob.Properties = append(props, property.Build(property.TypeCSVMetadata, meta))
}
