package bundledir

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
)

const kindCSV = "ClusterServiceVersion"
const kindCRD = "CustomResourceDefinition"

// CSV is the part of a ClusterServiceVersion that catalogs use.
type CSV struct {
	Name          string
	Version       string // spec.version as written ("" when absent)
	Release       string // spec.release ("" when absent)
	Replaces      string
	Skips         []string
	SkipRange     string // olm.skipRange annotation
	Annotations   map[string]string
	Description   string
	Icon          *fbc.Icon
	RelatedImages []fbc.RelatedImage // spec.relatedImages, in order
	// OperatorImages are the container and init-container images of the install deployments, in
	// manifest order without duplicates.
	OperatorImages []string
	OwnedCRDs      []DefinitionKey
	RequiredCRDs   []DefinitionKey
	OwnedAPIs      []DefinitionKey // spec.apiservicedefinitions.owned
	RequiredAPIs   []DefinitionKey
}

// DefinitionKey names a CRD or API service a CSV owns or requires.
type DefinitionKey struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type csvDoc struct {
	Metadata struct {
		Name        string         `json:"name"`
		Annotations map[string]any `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Version     json.RawMessage `json:"version"`
		Release     json.RawMessage `json:"release"`
		Replaces    string          `json:"replaces"`
		Skips       []string        `json:"skips"`
		Description string          `json:"description"`
		Icon        []struct {
			Data      string `json:"base64data"`
			MediaType string `json:"mediatype"`
		} `json:"icon"`
		RelatedImages []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"relatedImages"`
		Install csvmeta.Install `json:"install"`
		CRDs    struct {
			Owned    []DefinitionKey `json:"owned"`
			Required []DefinitionKey `json:"required"`
		} `json:"customresourcedefinitions"`
		APIServices struct {
			Owned    []DefinitionKey `json:"owned"`
			Required []DefinitionKey `json:"required"`
		} `json:"apiservicedefinitions"`
	} `json:"spec"`
}

// parseCSV reads the catalog-relevant fields of a CSV object.
func parseCSV(o Object) (*CSV, error) {
	var d csvDoc
	if err := json.Unmarshal(o.JSON, &d); err != nil {
		return nil, fmt.Errorf("%s: ClusterServiceVersion %q: %v", o.File, o.Name, err)
	}
	c := &CSV{
		Name: d.Metadata.Name, Replaces: d.Spec.Replaces, Skips: d.Spec.Skips,
		Description: d.Spec.Description, Annotations: map[string]string{},
		OwnedCRDs: d.Spec.CRDs.Owned, RequiredCRDs: d.Spec.CRDs.Required,
		OwnedAPIs: d.Spec.APIServices.Owned, RequiredAPIs: d.Spec.APIServices.Required,
	}
	if c.Name == "" {
		return nil, fmt.Errorf("%s: ClusterServiceVersion has no metadata.name (the bundle's name comes from it)", o.File)
	}
	var err error
	if c.Version, err = optionalString(d.Spec.Version); err != nil {
		return nil, fmt.Errorf("%s: ClusterServiceVersion %q: spec.version %v", o.File, c.Name, err)
	}
	if c.Release, err = optionalString(d.Spec.Release); err != nil {
		return nil, fmt.Errorf("%s: ClusterServiceVersion %q: spec.release %v", o.File, c.Name, err)
	}
	for k, v := range d.Metadata.Annotations {
		if s, ok := v.(string); ok {
			c.Annotations[k] = s
		}
	}
	c.SkipRange = c.Annotations["olm.skipRange"]
	if len(d.Spec.Icon) > 0 {
		icon := d.Spec.Icon[0]
		data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(icon.Data), ""))
		if err != nil {
			return nil, fmt.Errorf("%s: ClusterServiceVersion %q: spec.icon[0].base64data is not base64: %v", o.File, c.Name, err)
		}
		c.Icon = &fbc.Icon{Data: data, MediaType: icon.MediaType}
	}
	for _, ri := range d.Spec.RelatedImages {
		c.RelatedImages = append(c.RelatedImages, fbc.RelatedImage{Name: ri.Name, Image: ri.Image})
	}
	seen := map[string]bool{}
	for _, img := range d.Spec.Install.OperatorImages() {
		if img != "" && !seen[img] {
			seen[img] = true
			c.OperatorImages = append(c.OperatorImages, img)
		}
	}
	return c, nil
}

func optionalString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("must be a string, found %s (quote it in the YAML)", raw)
	}
	return s, nil
}

// API is one group/version/kind a bundle provides or requires.
type API struct {
	Group, Version, Kind, Plural string
}

type crdDoc struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Version  string `json:"version"`
		Versions []struct {
			Name string `json:"name"`
		} `json:"versions"`
	} `json:"spec"`
}

// crdMembers are the members of a CRD that crdDoc takes.
var crdMembers = members{"spec": {"group": nil, "names": {"kind": nil, "plural": nil}, "version": nil, "versions": {"name": nil}}}

// providesAPIs reports whether the object is a CRD whose versions providedAPIs lists.
func (o Object) providesAPIs() bool {
	return o.Kind == kindCRD && (o.Version() == "v1" || o.Version() == "v1beta1")
}

// providedAPIs lists every version of every CRD in the bundle (v1 and v1beta1, whose spec.version
// also counts) and the API services the CSV owns, as opm's Bundle.ProvidedAPIs does.
func providedAPIs(objs []Object, csv *CSV) ([]API, error) {
	var out []API
	for _, o := range objs {
		if !o.providesAPIs() {
			continue
		}
		var d crdDoc
		if o.crd != nil {
			d = *o.crd
		} else if json.Unmarshal(skim(o.JSON, crdMembers), &d) != nil {
			d = crdDoc{} // the message of the whole document
			if err := json.Unmarshal(o.JSON, &d); err != nil {
				return nil, fmt.Errorf("%s: CustomResourceDefinition %q: %v", o.File, o.Name, err)
			}
		}
		for _, v := range d.Spec.Versions {
			out = append(out, API{d.Spec.Group, v.Name, d.Spec.Names.Kind, d.Spec.Names.Plural})
		}
		if o.Version() == "v1beta1" && d.Spec.Version != "" {
			out = append(out, API{d.Spec.Group, d.Spec.Version, d.Spec.Names.Kind, d.Spec.Names.Plural})
		}
	}
	for _, a := range csv.OwnedAPIs {
		out = append(out, API{a.Group, a.Version, a.Kind, a.Name})
	}
	return out, nil
}

// requiredAPIs lists the CRDs and API services the CSV requires.
func requiredAPIs(csv *CSV) ([]API, error) {
	var out []API
	for _, r := range csv.RequiredCRDs {
		plural, group, ok := strings.Cut(r.Name, ".")
		if !ok {
			return nil, fmt.Errorf("ClusterServiceVersion %q: required CRD name %q is not <plural>.<group>", csv.Name, r.Name)
		}
		out = append(out, API{group, r.Version, r.Kind, plural})
	}
	for _, a := range csv.RequiredAPIs {
		out = append(out, API{a.Group, a.Version, a.Kind, a.Name})
	}
	return out, nil
}

// checkOwnedCRDsPresent is opm's AllProvidedAPIsInBundle: every CRD the CSV owns must be served by
// a CRD manifest of the bundle.
func checkOwnedCRDsPresent(csv *CSV, provided []API) error {
	have := make(map[API]bool, len(provided))
	for _, a := range provided {
		have[a] = true
	}
	for _, o := range csv.OwnedCRDs {
		plural, group, ok := strings.Cut(o.Name, ".")
		if !ok {
			return fmt.Errorf("ClusterServiceVersion %q: owned CRD name %q is not <plural>.<group>", csv.Name, o.Name)
		}
		if !have[API{group, o.Version, o.Kind, plural}] {
			return fmt.Errorf("ClusterServiceVersion %q owns CRD %s version %s kind %s, but no CustomResourceDefinition in manifests/ serves it (add the CRD manifest or fix spec.customresourcedefinitions.owned)",
				csv.Name, o.Name, o.Version, o.Kind)
		}
	}
	return nil
}
