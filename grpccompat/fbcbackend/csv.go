package fbcbackend

import (
	"encoding/base64"
	"encoding/json"
)

// The ClusterServiceVersion that opm synthesizes for a bundle that has olm.csv.metadata and no
// manifests. These types reproduce the JSON shape of operator-framework/api's v1alpha1 types
// (field order, names and omitempty rules), because clients read csvJson as that type and the
// corpus compares it byte for byte. Only the fields opm fills are declared.

type csvMetadata struct {
	Annotations               map[string]string         `json:"annotations,omitempty"`
	APIServiceDefinitions     apiServiceDefinitions     `json:"apiServiceDefinitions,omitempty"`
	CustomResourceDefinitions customResourceDefinitions `json:"crdDescriptions,omitempty"`
	Description               string                    `json:"description,omitempty"`
	DisplayName               string                    `json:"displayName,omitempty"`
	InstallModes              []installMode             `json:"installModes,omitempty"`
	Keywords                  []string                  `json:"keywords,omitempty"`
	Labels                    map[string]string         `json:"labels,omitempty"`
	Links                     []appLink                 `json:"links,omitempty"`
	Maintainers               []maintainer              `json:"maintainers,omitempty"`
	Maturity                  string                    `json:"maturity,omitempty"`
	MinKubeVersion            string                    `json:"minKubeVersion,omitempty"`
	NativeAPIs                []groupVersionKind        `json:"nativeAPIs,omitempty"`
	Provider                  appLink                   `json:"provider,omitempty"`
}

type installMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

type appLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type descriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

type apiResourceReference struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

type crdDescription struct {
	Name              string                 `json:"name"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []apiResourceReference `json:"resources,omitempty"`
	StatusDescriptors []descriptor           `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []descriptor           `json:"specDescriptors,omitempty"`
	ActionDescriptor  []descriptor           `json:"actionDescriptors,omitempty"`
}

type apiServiceDescription struct {
	Name              string                 `json:"name"`
	Group             string                 `json:"group"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DeploymentName    string                 `json:"deploymentName,omitempty"`
	ContainerPort     int32                  `json:"containerPort,omitempty"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []apiResourceReference `json:"resources,omitempty"`
	StatusDescriptors []descriptor           `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []descriptor           `json:"specDescriptors,omitempty"`
	ActionDescriptor  []descriptor           `json:"actionDescriptors,omitempty"`
}

type customResourceDefinitions struct {
	Owned    []crdDescription `json:"owned,omitempty"`
	Required []crdDescription `json:"required,omitempty"`
}

type apiServiceDefinitions struct {
	Owned    []apiServiceDescription `json:"owned,omitempty"`
	Required []apiServiceDescription `json:"required,omitempty"`
}

type syntheticCSV struct {
	Kind       string        `json:"kind,omitempty"`
	APIVersion string        `json:"apiVersion,omitempty"`
	Metadata   csvObjectMeta `json:"metadata"`
	Spec       csvSpec       `json:"spec"`
	Status     csvStatus     `json:"status"`
}

type csvObjectMeta struct {
	Name        string            `json:"name,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type csvSpec struct {
	Install                   namedInstallStrategy      `json:"install"`
	Version                   string                    `json:"version"`
	Maturity                  string                    `json:"maturity,omitempty"`
	CustomResourceDefinitions customResourceDefinitions `json:"customresourcedefinitions"`
	APIServiceDefinitions     apiServiceDefinitions     `json:"apiservicedefinitions"`
	NativeAPIs                []groupVersionKind        `json:"nativeAPIs,omitempty"`
	MinKubeVersion            string                    `json:"minKubeVersion,omitempty"`
	DisplayName               string                    `json:"displayName"`
	Description               string                    `json:"description,omitempty"`
	Keywords                  []string                  `json:"keywords,omitempty"`
	Maintainers               []maintainer              `json:"maintainers,omitempty"`
	Provider                  appLink                   `json:"provider"`
	Links                     []appLink                 `json:"links,omitempty"`
	Icon                      []csvIcon                 `json:"icon,omitempty"`
	InstallModes              []installMode             `json:"installModes,omitempty"`
	Cleanup                   struct {
		Enabled bool `json:"enabled"`
	} `json:"cleanup"`
	RelatedImages []csvRelatedImage `json:"relatedImages,omitempty"`
}

type namedInstallStrategy struct {
	StrategyName string `json:"strategy"`
	StrategySpec struct {
		DeploymentSpecs []struct{} `json:"deployments"`
	} `json:"spec"`
}

type csvIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type csvRelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type csvStatus struct {
	Cleanup struct{} `json:"cleanup"`
}

// packageFacts are the package-level values the synthesized CSV falls back on.
type packageFacts struct {
	Description string
	Icon        *csvIcon
}

// synthesizeCSV builds the csvJson opm serves for a bundle with olm.csv.metadata and no manifests:
// the metadata's fields, the package's description and icon where the metadata has none, a stub
// "deployment" install strategy, the bundle version and its related images.
func synthesizeCSV(name string, b body, pkg packageFacts) (string, error) {
	var m csvMetadata
	if err := json.Unmarshal(b.CSVMeta, &m); err != nil {
		return "", err
	}
	// opm would fill a missing "description" annotation from the package's short description,
	// which an FBC package never has, so the annotations stay as they are.
	if m.Description == "" {
		m.Description = pkg.Description
	}
	csv := syntheticCSV{
		Kind:       "ClusterServiceVersion",
		APIVersion: "operators.coreos.com/v1alpha1",
		Metadata:   csvObjectMeta{Name: name, Labels: m.Labels, Annotations: m.Annotations},
	}
	s := &csv.Spec
	s.Install.StrategyName = "deployment"
	s.Version = b.Version
	s.Maturity = m.Maturity
	s.CustomResourceDefinitions = m.CustomResourceDefinitions
	s.APIServiceDefinitions = m.APIServiceDefinitions
	s.NativeAPIs = m.NativeAPIs
	s.MinKubeVersion = m.MinKubeVersion
	s.DisplayName = m.DisplayName
	s.Description = m.Description
	s.Keywords = m.Keywords
	s.Maintainers = m.Maintainers
	s.Provider = m.Provider
	s.Links = m.Links
	if pkg.Icon != nil {
		s.Icon = []csvIcon{*pkg.Icon}
	}
	s.InstallModes = m.InstallModes
	for _, ri := range b.Related {
		s.RelatedImages = append(s.RelatedImages, csvRelatedImage{Name: ri.Name, Image: ri.Image})
	}
	out, err := json.Marshal(csv)
	return string(out), err
}

// iconFacts turns a package icon into the CSV icon opm writes (standard base64 of the bytes).
func iconFacts(data []byte, mediaType string) *csvIcon {
	return &csvIcon{Data: base64.StdEncoding.EncodeToString(data), MediaType: mediaType}
}
