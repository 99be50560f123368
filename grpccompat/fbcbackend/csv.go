package fbcbackend

import (
	"encoding/json"

	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// synthesizeCSV builds the csvJson opm serves for a bundle with olm.csv.metadata and no manifests.
func synthesizeCSV(name string, b body, pkg csvmeta.Package) (string, error) {
	var m csvmeta.Metadata
	if err := json.Unmarshal(b.CSVMeta, &m); err != nil {
		return "", err
	}
	out, err := csvmeta.SynthesizeCSV(m, csvmeta.Bundle{Name: name, Version: b.Version, RelatedImages: b.Related}, pkg)
	return string(out), err
}
