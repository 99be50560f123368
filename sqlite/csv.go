package sqlite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// CSVFields are the parts of a ClusterServiceVersion that opm's loader copied into columns and tables,
// read back from the csv column for schemas that predate those columns.
type CSVFields struct {
	Name           string
	Version        string // spec.version
	SkipRange      string // annotation olm.skipRange
	Replaces       string
	Skips          []string
	RelatedImages  []RelatedImage // spec.relatedImages
	OperatorImages []string       // deployment containers and init containers (deployment strategy only)
	RequiredAPIs   []GVK          // required CRDs and APIServices
}

// RelatedImage is an entry of spec.relatedImages.
type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type csvDocument struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Version       string          `json:"version"`
		Replaces      string          `json:"replaces"`
		Skips         []string        `json:"skips"`
		RelatedImages []RelatedImage  `json:"relatedImages"`
		Install       csvmeta.Install `json:"install"`
		CRDs          struct {
			Required []struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Kind    string `json:"kind"`
			} `json:"required"`
		} `json:"customresourcedefinitions"`
		APIServices struct {
			Required []struct {
				Group   string `json:"group"`
				Version string `json:"version"`
				Kind    string `json:"kind"`
			} `json:"required"`
		} `json:"apiservicedefinitions"`
	} `json:"spec"`
}

// ParseCSVFields decodes the fields of a CSV that old schemas did not store in columns.
func ParseCSVFields(csv []byte) (*CSVFields, error) {
	var doc csvDocument
	if err := decodeObject(string(csv), &doc); err != nil {
		return nil, fmt.Errorf("ClusterServiceVersion: %w", err)
	}
	f := &CSVFields{
		Name:           doc.Metadata.Name,
		Version:        doc.Spec.Version,
		SkipRange:      doc.Metadata.Annotations["olm.skipRange"],
		Replaces:       doc.Spec.Replaces,
		Skips:          doc.Spec.Skips,
		RelatedImages:  doc.Spec.RelatedImages,
		OperatorImages: doc.Spec.Install.OperatorImages(),
	}
	for _, crd := range doc.Spec.CRDs.Required {
		plural, group, ok := strings.Cut(crd.Name, ".")
		if !ok || plural == "" {
			return nil, fmt.Errorf("ClusterServiceVersion %q: required CRD name %q is not <plural>.<group>", f.Name, crd.Name)
		}
		f.RequiredAPIs = append(f.RequiredAPIs, GVK{Group: group, Version: crd.Version, Kind: crd.Kind})
	}
	for _, api := range doc.Spec.APIServices.Required {
		f.RequiredAPIs = append(f.RequiredAPIs, GVK{Group: api.Group, Version: api.Version, Kind: api.Kind})
	}
	return f, nil
}

// CSVRelatedImages reads spec.relatedImages the way opm's conversion does (json.Unmarshal into a
// struct): nil when csv is empty, an empty (non-nil) list when the CSV has none. csv must be valid
// JSON (SplitObjects checks every manifest); only the relatedImages value is decoded.
func CSVRelatedImages(csv []byte) ([]RelatedImage, error) {
	if len(csv) == 0 {
		return nil, nil
	}
	if b := bytes.TrimSpace(csv); len(b) == 0 || b[0] != '{' {
		var doc struct{}
		if err := json.Unmarshal(csv, &doc); err != nil {
			return nil, fmt.Errorf("the ClusterServiceVersion: %w", err)
		}
		return []RelatedImage{}, nil
	}
	var images []RelatedImage
	for _, spec := range foldFields(csv, "spec") {
		if string(spec) == "null" {
			continue
		}
		if spec[0] != '{' {
			return nil, fmt.Errorf("spec of the ClusterServiceVersion is not an object")
		}
		for _, ri := range foldFields(spec, "relatedImages") {
			if err := json.Unmarshal(ri, &images); err != nil {
				return nil, fmt.Errorf("spec.relatedImages of the ClusterServiceVersion: %w", err)
			}
		}
	}
	if images == nil {
		return []RelatedImage{}, nil
	}
	return images, nil
}
