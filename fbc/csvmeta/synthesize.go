package csvmeta

import (
	"encoding/base64"
	"encoding/json"
)

// Icon is a CSV's spec.icon entry: the image bytes in standard base64.
type Icon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// IconOf is the CSV icon opm writes for a package icon.
func IconOf(data []byte, mediaType string) *Icon {
	return &Icon{Data: base64.StdEncoding.EncodeToString(data), MediaType: mediaType}
}

// RelatedImage is a CSV's spec.relatedImages entry.
type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// Bundle is what a synthesized CSV takes from its bundle besides the metadata.
type Bundle struct {
	Name          string
	Version       string
	RelatedImages []RelatedImage
}

// Package is what a synthesized CSV takes from its package.
type Package struct {
	Description string
	Icon        *Icon
}

// synthesizedCSV is a v1alpha1.ClusterServiceVersion holding only what opm fills in.
type synthesizedCSV struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name        string            `json:"name,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Install struct {
			Strategy string `json:"strategy"`
			Spec     struct {
				Deployments []struct{} `json:"deployments"` // always null: opm's stub strategy
			} `json:"spec"`
		} `json:"install"`
		Version        string        `json:"version"`
		Maturity       string        `json:"maturity,omitempty"`
		CRDs           CRDs          `json:"customresourcedefinitions"`
		APIServices    APIServices   `json:"apiservicedefinitions"`
		NativeAPIs     []GVK         `json:"nativeAPIs,omitempty"`
		MinKubeVersion string        `json:"minKubeVersion,omitempty"`
		DisplayName    string        `json:"displayName"`
		Description    string        `json:"description,omitempty"`
		Keywords       []string      `json:"keywords,omitempty"`
		Maintainers    []Maintainer  `json:"maintainers,omitempty"`
		Provider       AppLink       `json:"provider"`
		Links          []AppLink     `json:"links,omitempty"`
		Icon           []Icon        `json:"icon,omitempty"`
		InstallModes   []InstallMode `json:"installModes,omitempty"`
		Cleanup        struct {
			Enabled bool `json:"enabled"`
		} `json:"cleanup"`
		RelatedImages []RelatedImage `json:"relatedImages,omitempty"`
	} `json:"spec"`
	Status struct {
		Cleanup struct{} `json:"cleanup"`
	} `json:"status"`
}

// SynthesizeCSV builds the CSV opm serve makes for a bundle that has olm.csv.metadata and no CSV
// object: the metadata, the bundle's name and version, the package icon, a stub "deployment"
// install strategy, the bundle's related images, and the package description when the metadata
// has none. The bytes are encoding/json's (struct field order, HTML escaping), as opm's
// json.Marshal.
func SynthesizeCSV(meta Metadata, b Bundle, pkg Package) ([]byte, error) {
	// opm would also fill a missing "description" annotation from the package's short
	// description, which an FBC package never has, so the annotations stay as they are.
	var c synthesizedCSV
	c.Kind = "ClusterServiceVersion"
	c.APIVersion = "operators.coreos.com/v1alpha1"
	c.Metadata.Name = b.Name
	c.Metadata.Labels = meta.Labels
	c.Metadata.Annotations = meta.Annotations
	s := &c.Spec
	s.Install.Strategy = "deployment"
	s.Version = b.Version
	s.Maturity = meta.Maturity
	s.CRDs = meta.CRDDescriptions
	s.APIServices = meta.APIServiceDefinitions
	s.NativeAPIs = meta.NativeAPIs
	s.MinKubeVersion = meta.MinKubeVersion
	s.DisplayName = meta.DisplayName
	s.Description = meta.Description
	if s.Description == "" {
		s.Description = pkg.Description
	}
	s.Keywords = meta.Keywords
	s.Maintainers = meta.Maintainers
	s.Provider = meta.Provider
	s.Links = meta.Links
	if pkg.Icon != nil {
		s.Icon = []Icon{*pkg.Icon}
	}
	s.InstallModes = meta.InstallModes
	s.RelatedImages = b.RelatedImages
	return json.Marshal(c)
}
