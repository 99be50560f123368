// Package csvmeta is the olm.csv.metadata property value, the ClusterServiceVersion opm
// synthesizes from it (pkg/api/model_to_api.go ConvertModelBundleToAPIBundle), and the CSV parts
// the catalog readers share (the deployment install strategy's images). The types mirror
// operator-framework/api's v1alpha1 types and opm's property.CSVMetadata (field order, names,
// omitempty), so that encoding/json writes exactly the bytes opm writes.
package csvmeta

import "encoding/json"

// Metadata is the value of an olm.csv.metadata property, in opm's field order.
type Metadata struct {
	Annotations           map[string]string `json:"annotations,omitempty"`
	APIServiceDefinitions APIServices       `json:"apiServiceDefinitions,omitempty"`
	CRDDescriptions       CRDs              `json:"crdDescriptions,omitempty"`
	Description           string            `json:"description,omitempty"`
	DisplayName           string            `json:"displayName,omitempty"`
	InstallModes          []InstallMode     `json:"installModes,omitempty"`
	Keywords              []string          `json:"keywords,omitempty"`
	Labels                map[string]string `json:"labels,omitempty"`
	Links                 []AppLink         `json:"links,omitempty"`
	Maintainers           []Maintainer      `json:"maintainers,omitempty"`
	Maturity              string            `json:"maturity,omitempty"`
	MinKubeVersion        string            `json:"minKubeVersion,omitempty"`
	NativeAPIs            []GVK             `json:"nativeAPIs,omitempty"`
	Provider              AppLink           `json:"provider,omitempty"`
}

// CRDs are a CSV's owned and required CustomResourceDefinition descriptions.
type CRDs struct {
	Owned    []CRDDescription `json:"owned,omitempty"`
	Required []CRDDescription `json:"required,omitempty"`
}

// APIServices are a CSV's owned and required API service descriptions.
type APIServices struct {
	Owned    []APIServiceDescription `json:"owned,omitempty"`
	Required []APIServiceDescription `json:"required,omitempty"`
}

// CRDDescription is v1alpha1's CRDDescription.
type CRDDescription struct {
	Name              string        `json:"name"`
	Version           string        `json:"version"`
	Kind              string        `json:"kind"`
	DisplayName       string        `json:"displayName,omitempty"`
	Description       string        `json:"description,omitempty"`
	Resources         []ResourceRef `json:"resources,omitempty"`
	StatusDescriptors []Descriptor  `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []Descriptor  `json:"specDescriptors,omitempty"`
	ActionDescriptors []Descriptor  `json:"actionDescriptors,omitempty"`
}

// APIServiceDescription is v1alpha1's APIServiceDescription.
type APIServiceDescription struct {
	Name              string        `json:"name"`
	Group             string        `json:"group"`
	Version           string        `json:"version"`
	Kind              string        `json:"kind"`
	DeploymentName    string        `json:"deploymentName,omitempty"`
	ContainerPort     int32         `json:"containerPort,omitempty"`
	DisplayName       string        `json:"displayName,omitempty"`
	Description       string        `json:"description,omitempty"`
	Resources         []ResourceRef `json:"resources,omitempty"`
	StatusDescriptors []Descriptor  `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []Descriptor  `json:"specDescriptors,omitempty"`
	ActionDescriptors []Descriptor  `json:"actionDescriptors,omitempty"`
}

// ResourceRef is v1alpha1's APIResourceReference.
type ResourceRef struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// Descriptor is v1alpha1's SpecDescriptor, StatusDescriptor and ActionDescriptor (same shape).
type Descriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

// InstallMode is v1alpha1's InstallMode.
type InstallMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

// AppLink is v1alpha1's AppLink (also the CSV's provider).
type AppLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

// Maintainer is v1alpha1's Maintainer.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

// GVK is a CSV's native API (metav1.GroupVersionKind).
type GVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// csvDocument is the part of a ClusterServiceVersion manifest that olm.csv.metadata is made of.
type csvDocument struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec struct {
		APIServiceDefinitions APIServices   `json:"apiservicedefinitions"`
		CRDDescriptions       CRDs          `json:"customresourcedefinitions"`
		Description           string        `json:"description"`
		DisplayName           string        `json:"displayName"`
		InstallModes          []InstallMode `json:"installModes"`
		Keywords              []string      `json:"keywords"`
		Links                 []AppLink     `json:"links"`
		Maintainers           []Maintainer  `json:"maintainers"`
		Maturity              string        `json:"maturity"`
		MinKubeVersion        string        `json:"minKubeVersion"`
		NativeAPIs            []GVK         `json:"nativeAPIs"`
		Provider              AppLink       `json:"provider"`
	} `json:"spec"`
}

// FromCSV makes the olm.csv.metadata of a ClusterServiceVersion manifest (JSON), as opm's
// bundle-object-to-csv-metadata migration does.
func FromCSV(csvJSON []byte) (Metadata, error) {
	var csv csvDocument
	if err := json.Unmarshal(csvJSON, &csv); err != nil {
		return Metadata{}, err
	}
	return Metadata{
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
	}, nil
}
