package convert

import "github.com/olmcat/olmcat/fbc/csvmeta"

// storedObject is what the conversion reads from a bundle manifest: the kind, and the fields it uses
// of a ClusterServiceVersion or a CustomResourceDefinition (v1 or v1beta1), decoded in one pass.
type storedObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Replaces      string                 `json:"replaces"`
		Skips         []string               `json:"skips"`
		RelatedImages []csvmeta.RelatedImage `json:"relatedImages"`
		Icon          []csvmeta.Icon         `json:"icon"`
		CRDs          apiDescriptionRefs     `json:"customresourcedefinitions"`
		APIServices   apiDescriptionRefs     `json:"apiservicedefinitions"`

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
func refsOf(crds csvmeta.CRDs, apis csvmeta.APIServices) (apiDescriptionRefs, apiDescriptionRefs) {
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
