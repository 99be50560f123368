package tofbc

import (
	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// csvMetadata applies opm's bundle-object-to-csv-metadata migration to a bundle (csvmeta.Migrate);
// a CSV that does not decode keeps the bundle's objects, with a departure.
func (pc *packageConverter) csvMetadata(b *bundleBuild) {
	if err := csvmeta.Migrate(&b.blob, b.csvJSON); err != nil {
		pc.depart(Departure{Code: CSVMetadataUnavailable, Bundle: b.name,
			Opm:    "fails to decode the ClusterServiceVersion for olm.csv.metadata: " + err.Error(),
			Olmcat: "keeps the bundle's olm.bundle.object properties"})
	}
}
