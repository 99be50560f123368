package convert

import (
	"encoding/json"
	"slices"

	"github.com/olmcat/olmcat/fbc"
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
	var csv fromCSVDocument
	if err := json.Unmarshal(b.csvJSON, &csv); err != nil {
		pc.depart(Departure{Code: CSVMetadataUnavailable, Bundle: b.name,
			Opm:    "fails to decode the ClusterServiceVersion for olm.csv.metadata: " + err.Error(),
			Olmcat: "keeps the bundle's olm.bundle.object properties"})
		return
	}
	meta := fromCSVMetadata{
		Annotations:           csv.Metadata.Annotations,
		APIServiceDefinitions: csv.Spec.APIServiceDefinitions,
		CRDDescriptions:       csv.Spec.CRDDescriptions,
		Description:           csv.Spec.Description,
		DisplayName:           csv.Spec.DisplayName,
		InstallModes:          csv.Spec.InstallModes,
		Keywords:              csv.Spec.Keywords,
		Labels:                csv.Metadata.Labels,
		Links:                 csv.Spec.Links,
		Maintainers:           csv.Spec.Maintainers,
		Maturity:              csv.Spec.Maturity,
		MinKubeVersion:        csv.Spec.MinKubeVersion,
		NativeAPIs:            csv.Spec.NativeAPIs,
		Provider:              csv.Spec.Provider,
	}
	props := slices.DeleteFunc(b.blob.Properties, func(p fbc.Property) bool { return p.Type == property.TypeBundleObject })
	b.blob.Properties = append(props, property.Build(property.TypeCSVMetadata, meta))
}

// The types below mirror operator-framework/api's v1alpha1 CSV types and opm's property.CSVMetadata
// (field order, names, omitempty), so encoding/json writes the same bytes as opm.

type fromCSVDocument struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec struct {
		APIServiceDefinitions fromCSVAPIServices   `json:"apiservicedefinitions"`
		CRDDescriptions       fromCSVCRDs          `json:"customresourcedefinitions"`
		Description           string               `json:"description"`
		DisplayName           string               `json:"displayName"`
		InstallModes          []fromCSVInstallMode `json:"installModes"`
		Keywords              []string             `json:"keywords"`
		Links                 []fromCSVAppLink     `json:"links"`
		Maintainers           []fromCSVMaintainer  `json:"maintainers"`
		Maturity              string               `json:"maturity"`
		MinKubeVersion        string               `json:"minKubeVersion"`
		NativeAPIs            []fromCSVGVK         `json:"nativeAPIs"`
		Provider              fromCSVAppLink       `json:"provider"`
	} `json:"spec"`
}

type fromCSVMetadata struct {
	Annotations           map[string]string    `json:"annotations,omitempty"`
	APIServiceDefinitions fromCSVAPIServices   `json:"apiServiceDefinitions,omitempty"`
	CRDDescriptions       fromCSVCRDs          `json:"crdDescriptions,omitempty"`
	Description           string               `json:"description,omitempty"`
	DisplayName           string               `json:"displayName,omitempty"`
	InstallModes          []fromCSVInstallMode `json:"installModes,omitempty"`
	Keywords              []string             `json:"keywords,omitempty"`
	Labels                map[string]string    `json:"labels,omitempty"`
	Links                 []fromCSVAppLink     `json:"links,omitempty"`
	Maintainers           []fromCSVMaintainer  `json:"maintainers,omitempty"`
	Maturity              string               `json:"maturity,omitempty"`
	MinKubeVersion        string               `json:"minKubeVersion,omitempty"`
	NativeAPIs            []fromCSVGVK         `json:"nativeAPIs,omitempty"`
	Provider              fromCSVAppLink       `json:"provider,omitempty"`
}

type fromCSVCRDs struct {
	Owned    []fromCSVCRDDescription `json:"owned,omitempty"`
	Required []fromCSVCRDDescription `json:"required,omitempty"`
}

type fromCSVAPIServices struct {
	Owned    []fromCSVAPIServiceDescription `json:"owned,omitempty"`
	Required []fromCSVAPIServiceDescription `json:"required,omitempty"`
}

type fromCSVCRDDescription struct {
	Name              string               `json:"name"`
	Version           string               `json:"version"`
	Kind              string               `json:"kind"`
	DisplayName       string               `json:"displayName,omitempty"`
	Description       string               `json:"description,omitempty"`
	Resources         []fromCSVResourceRef `json:"resources,omitempty"`
	StatusDescriptors []fromCSVDescriptor  `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []fromCSVDescriptor  `json:"specDescriptors,omitempty"`
	ActionDescriptors []fromCSVDescriptor  `json:"actionDescriptors,omitempty"`
}

type fromCSVAPIServiceDescription struct {
	Name              string               `json:"name"`
	Group             string               `json:"group"`
	Version           string               `json:"version"`
	Kind              string               `json:"kind"`
	DeploymentName    string               `json:"deploymentName,omitempty"`
	ContainerPort     int32                `json:"containerPort,omitempty"`
	DisplayName       string               `json:"displayName,omitempty"`
	Description       string               `json:"description,omitempty"`
	Resources         []fromCSVResourceRef `json:"resources,omitempty"`
	StatusDescriptors []fromCSVDescriptor  `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []fromCSVDescriptor  `json:"specDescriptors,omitempty"`
	ActionDescriptors []fromCSVDescriptor  `json:"actionDescriptors,omitempty"`
}

type fromCSVResourceRef struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// fromCSVDescriptor is v1alpha1's SpecDescriptor, StatusDescriptor and ActionDescriptor.
type fromCSVDescriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

type fromCSVInstallMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

type fromCSVAppLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type fromCSVMaintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

type fromCSVGVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}
