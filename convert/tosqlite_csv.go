package convert

import (
	"encoding/base64"
	"encoding/json"

	"github.com/olmcat/olmcat/fbc"
)

// storedObject is what the conversion reads from a bundle manifest: the kind, and the fields it uses
// of a ClusterServiceVersion or a CustomResourceDefinition (v1 or v1beta1), decoded in one pass.
type storedObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Replaces      string                `json:"replaces"`
		Skips         []string              `json:"skips"`
		RelatedImages []csvSpecRelatedImage `json:"relatedImages"`
		Icon          []csvSpecIcon         `json:"icon"`
		CRDs          apiDescriptionRefs    `json:"customresourcedefinitions"`
		APIServices   apiDescriptionRefs    `json:"apiservicedefinitions"`

		// CustomResourceDefinition
		Group   string `json:"group"`
		Version string `json:"version"` // also the CSV's spec.version; v1beta1 CRDs only
		Names   struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name string `json:"name"`
		} `json:"versions"`
	} `json:"spec"`
}

// apiDescriptionRefs are the owned and required API descriptions of a CSV, reduced to the fields
// that name an API (CRD descriptions have no group: it is in the name, after the plural).
type apiDescriptionRefs struct {
	Owned    []apiDescriptionRef `json:"owned"`
	Required []apiDescriptionRef `json:"required"`
}

type apiDescriptionRef struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// refsOf reduces full descriptions (from olm.csv.metadata) to apiDescriptionRefs.
func refsOf(crds csvSpecCRDs, apis csvSpecAPIServices) (apiDescriptionRefs, apiDescriptionRefs) {
	var c, a apiDescriptionRefs
	for _, d := range crds.Owned {
		c.Owned = append(c.Owned, apiDescriptionRef{Name: d.Name, Version: d.Version, Kind: d.Kind})
	}
	for _, d := range crds.Required {
		c.Required = append(c.Required, apiDescriptionRef{Name: d.Name, Version: d.Version, Kind: d.Kind})
	}
	for _, d := range apis.Owned {
		a.Owned = append(a.Owned, apiDescriptionRef{Name: d.Name, Group: d.Group, Version: d.Version, Kind: d.Kind})
	}
	for _, d := range apis.Required {
		a.Required = append(a.Required, apiDescriptionRef{Name: d.Name, Group: d.Group, Version: d.Version, Kind: d.Kind})
	}
	return c, a
}

// The types below mirror operator-framework/api v1alpha1 (field order, names, omitempty), so that
// encoding/json writes exactly the bytes opm serve writes for a CSV it synthesizes from
// olm.csv.metadata (pkg/api/model_to_api.go ConvertModelBundleToAPIBundle).

type csvMetadataProperty struct {
	Annotations           map[string]string    `json:"annotations,omitempty"`
	APIServiceDefinitions csvSpecAPIServices   `json:"apiServiceDefinitions,omitempty"`
	CRDDescriptions       csvSpecCRDs          `json:"crdDescriptions,omitempty"`
	Description           string               `json:"description,omitempty"`
	DisplayName           string               `json:"displayName,omitempty"`
	InstallModes          []csvSpecInstallMode `json:"installModes,omitempty"`
	Keywords              []string             `json:"keywords,omitempty"`
	Labels                map[string]string    `json:"labels,omitempty"`
	Links                 []csvSpecAppLink     `json:"links,omitempty"`
	Maintainers           []csvSpecMaintainer  `json:"maintainers,omitempty"`
	Maturity              string               `json:"maturity,omitempty"`
	MinKubeVersion        string               `json:"minKubeVersion,omitempty"`
	NativeAPIs            []csvSpecGVK         `json:"nativeAPIs,omitempty"`
	Provider              csvSpecAppLink       `json:"provider,omitempty"`
}

type csvSpecCRDs struct {
	Owned    []csvSpecCRDDescription `json:"owned,omitempty"`
	Required []csvSpecCRDDescription `json:"required,omitempty"`
}

type csvSpecAPIServices struct {
	Owned    []csvSpecAPIServiceDescription `json:"owned,omitempty"`
	Required []csvSpecAPIServiceDescription `json:"required,omitempty"`
}

type csvSpecCRDDescription struct {
	Name              string               `json:"name"`
	Version           string               `json:"version"`
	Kind              string               `json:"kind"`
	DisplayName       string               `json:"displayName,omitempty"`
	Description       string               `json:"description,omitempty"`
	Resources         []csvSpecResourceRef `json:"resources,omitempty"`
	StatusDescriptors []csvSpecDescriptor  `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []csvSpecDescriptor  `json:"specDescriptors,omitempty"`
	ActionDescriptors []csvSpecDescriptor  `json:"actionDescriptors,omitempty"`
}

type csvSpecAPIServiceDescription struct {
	Name              string               `json:"name"`
	Group             string               `json:"group"`
	Version           string               `json:"version"`
	Kind              string               `json:"kind"`
	DeploymentName    string               `json:"deploymentName,omitempty"`
	ContainerPort     int32                `json:"containerPort,omitempty"`
	DisplayName       string               `json:"displayName,omitempty"`
	Description       string               `json:"description,omitempty"`
	Resources         []csvSpecResourceRef `json:"resources,omitempty"`
	StatusDescriptors []csvSpecDescriptor  `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []csvSpecDescriptor  `json:"specDescriptors,omitempty"`
	ActionDescriptors []csvSpecDescriptor  `json:"actionDescriptors,omitempty"`
}

type csvSpecResourceRef struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// csvSpecDescriptor is v1alpha1's StatusDescriptor, SpecDescriptor and ActionDescriptor (same shape).
type csvSpecDescriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

type csvSpecInstallMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

type csvSpecAppLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type csvSpecMaintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

type csvSpecGVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type csvSpecIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type csvSpecRelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
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
		Version        string               `json:"version"`
		Maturity       string               `json:"maturity,omitempty"`
		CRDs           csvSpecCRDs          `json:"customresourcedefinitions"`
		APIServices    csvSpecAPIServices   `json:"apiservicedefinitions"`
		NativeAPIs     []csvSpecGVK         `json:"nativeAPIs,omitempty"`
		MinKubeVersion string               `json:"minKubeVersion,omitempty"`
		DisplayName    string               `json:"displayName"`
		Description    string               `json:"description,omitempty"`
		Keywords       []string             `json:"keywords,omitempty"`
		Maintainers    []csvSpecMaintainer  `json:"maintainers,omitempty"`
		Provider       csvSpecAppLink       `json:"provider"`
		Links          []csvSpecAppLink     `json:"links,omitempty"`
		Icon           []csvSpecIcon        `json:"icon,omitempty"`
		InstallModes   []csvSpecInstallMode `json:"installModes,omitempty"`
		Cleanup        struct {
			Enabled bool `json:"enabled"`
		} `json:"cleanup"`
		RelatedImages []csvSpecRelatedImage `json:"relatedImages,omitempty"`
	} `json:"spec"`
	Status struct {
		Cleanup struct{} `json:"cleanup"`
	} `json:"status"`
}

// synthesizeCSV builds the CSV opm serve makes for a bundle that has olm.csv.metadata and no CSV
// object: the metadata, the bundle's name and version, the package icon, a stub deployment install
// strategy, the bundle's related images, and the package description when the metadata has none.
// The bytes are encoding/json's (struct field order, HTML escaping), as opm's json.Marshal.
func synthesizeCSV(meta csvMetadataProperty, name, version string, pkg *synthPackageInfo, related []fbc.RelatedImage) ([]byte, error) {
	var c synthesizedCSV
	c.Kind = "ClusterServiceVersion"
	c.APIVersion = "operators.coreos.com/v1alpha1"
	c.Metadata.Name = name
	c.Metadata.Labels = meta.Labels
	c.Metadata.Annotations = meta.Annotations
	c.Spec.Install.Strategy = "deployment"
	c.Spec.Version = version
	c.Spec.Maturity = meta.Maturity
	c.Spec.CRDs = meta.CRDDescriptions
	c.Spec.APIServices = meta.APIServiceDefinitions
	c.Spec.NativeAPIs = meta.NativeAPIs
	c.Spec.MinKubeVersion = meta.MinKubeVersion
	c.Spec.DisplayName = meta.DisplayName
	c.Spec.Description = meta.Description
	if c.Spec.Description == "" {
		c.Spec.Description = pkg.description
	}
	c.Spec.Keywords = meta.Keywords
	c.Spec.Maintainers = meta.Maintainers
	c.Spec.Provider = meta.Provider
	c.Spec.Links = meta.Links
	if pkg.icon != nil {
		c.Spec.Icon = []csvSpecIcon{{Data: base64.StdEncoding.EncodeToString(pkg.icon.Data), MediaType: pkg.icon.MediaType}}
	}
	c.Spec.InstallModes = meta.InstallModes
	for _, ri := range related {
		c.Spec.RelatedImages = append(c.Spec.RelatedImages, csvSpecRelatedImage{Name: ri.Name, Image: ri.Image})
	}
	return json.Marshal(c)
}

// synthPackageInfo is what a synthesized CSV takes from its package.
type synthPackageInfo struct {
	icon        *fbc.Icon
	description string
}
