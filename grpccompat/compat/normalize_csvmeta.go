package compat

import (
	"encoding/json"

	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// normCSVMetadata absorbs D14: a bundle served from olm.csv.metadata (an FBC migrated with
// bundle-object-to-csv-metadata, or rendered from such bundles) has a CSV synthesized by the
// server and object == [csvJson], where the other side serves the real manifests. The CSVs are
// then compared by what olm.csv.metadata keeps of a CSV, and object is not compared.
func normCSVMetadata(p *pair) bool {
	l, r := bundlesOf(p.sides[0].ans), bundlesOf(p.sides[1].ans)
	if len(l) == 0 || len(r) == 0 {
		return false
	}
	changed := false
	if !methods[p.call.Method].stream {
		if len(l) == 1 && len(r) == 1 {
			changed = csvMetadataPair(l[0], r[0])
		}
		return changed
	}
	byKey := make(map[string]*api.Bundle, len(r))
	for _, b := range r {
		byKey[messageKey(b)] = b
	}
	for _, b := range l {
		if o := byKey[messageKey(b)]; o != nil && csvMetadataPair(b, o) {
			changed = true
		}
	}
	return changed
}

func csvMetadataPair(a, b *api.Bundle) bool {
	if a.CsvJson == b.CsvJson || synthesized(a) == synthesized(b) {
		return false
	}
	ma, okA := csvMetadataOf(a.CsvJson)
	mb, okB := csvMetadataOf(b.CsvJson)
	if !okA || !okB {
		return false
	}
	a.CsvJson, b.CsvJson = ma, mb
	a.Object, b.Object = nil, nil
	return true
}

// synthesized reports whether the bundle looks served from olm.csv.metadata.
func synthesized(b *api.Bundle) bool {
	return b.CsvJson != "" && len(b.Object) == 1 && b.Object[0] == b.CsvJson
}

func csvMetadataOf(csvJSON string) (string, bool) {
	m, err := csvmeta.FromCSV([]byte(csvJSON))
	if err != nil {
		return "", false
	}
	out, err := json.Marshal(m)
	if err != nil {
		return "", false
	}
	return "olm.csv.metadata " + string(out), true
}
