package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc/property"
)

// storedManifests are a bundle's olm.bundle.object manifests as the operatorbundle row stores them.
type storedManifests struct {
	objects [][]byte // each one JSON object, in property order
	csv     []byte   // the first ClusterServiceVersion among objects, nil if none
	csvInfo *storedCSV
	plurals map[property.GVK]string // provided APIs known from CRD objects and the CSV
}

// storedCRD is what the conversion reads from a CustomResourceDefinition object (v1 or v1beta1).
type storedCRD struct {
	Kind string `json:"kind"`
	Spec struct {
		Group   string `json:"group"`
		Version string `json:"version"` // v1beta1 only
		Names   struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name string `json:"name"`
		} `json:"versions"`
	} `json:"spec"`
}

// readStoredManifests decodes the bundle objects. Objects that cannot be stored are reported; YAML objects
// are stored as JSON (the bundle column is a stream of JSON objects).
func readStoredManifests(objs []property.BundleObject, at Finding, r *SQLiteReport) storedManifests {
	m := storedManifests{plurals: map[property.GVK]string{}}
	for i, o := range objs {
		data := bytes.TrimSpace(o.Data)
		if len(data) == 0 {
			f := at
			f.Kind = KindBundleObjectRef
			f.Detail = fmt.Sprintf("olm.bundle.object #%d has no inline data (ref %q); the bundle column stores only inline objects", i, o.Ref)
			if o.Ref == "" {
				f.Kind = KindBundleObjectInvalid
				f.Detail = fmt.Sprintf("olm.bundle.object #%d is empty", i)
			}
			r.loss(f)
			continue
		}
		if !json.Valid(data) {
			converted, err := yaml.YAMLToJSON(data)
			if err != nil || !isJSONObjectText(converted) {
				f := at
				f.Kind, f.Detail = KindBundleObjectInvalid, fmt.Sprintf("olm.bundle.object #%d is neither a JSON nor a YAML object; left out of the bundle column", i)
				r.loss(f)
				continue
			}
			f := at
			f.Kind, f.Detail = KindObjectYAMLToJSON, fmt.Sprintf("olm.bundle.object #%d is YAML; stored as JSON (keys sorted)", i)
			r.change(f)
			data = converted
		}
		if !isJSONObjectText(data) {
			f := at
			f.Kind, f.Detail = KindBundleObjectInvalid, fmt.Sprintf("olm.bundle.object #%d is JSON but not an object; left out of the bundle column", i)
			r.loss(f)
			continue
		}
		var head struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(data, &head)
		switch head.Kind {
		case "ClusterServiceVersion":
			if m.csv == nil {
				var info storedCSV
				if err := json.Unmarshal(data, &info); err == nil {
					m.csv, m.csvInfo = data, &info
				}
			}
		case "CustomResourceDefinition":
			var crd storedCRD
			if err := json.Unmarshal(data, &crd); err == nil {
				for _, v := range crd.Spec.Versions {
					m.addPlural(crd.Spec.Group, v.Name, crd.Spec.Names.Kind, crd.Spec.Names.Plural)
				}
				if crd.Spec.Version != "" {
					m.addPlural(crd.Spec.Group, crd.Spec.Version, crd.Spec.Names.Kind, crd.Spec.Names.Plural)
				}
			}
		}
		m.objects = append(m.objects, data)
	}
	if m.csvInfo != nil {
		m.addDescriptionPlurals(m.csvInfo.Spec.CRDs.Owned, m.csvInfo.Spec.APIServices.Owned)
	}
	return m
}

// addDescriptionPlurals adds the plurals a CSV's owned API descriptions name: the first segment of
// a CRD description's name, and an APIService description's name (as opm's loader takes them).
// CRD objects, read first, win.
func (m *storedManifests) addDescriptionPlurals(crds []csvSpecCRDDescription, apis []csvSpecAPIServiceDescription) {
	for _, d := range crds {
		if plural, group, ok := strings.Cut(d.Name, "."); ok {
			m.addPlural(group, d.Version, d.Kind, plural)
		}
	}
	for _, a := range apis {
		m.addPlural(a.Group, a.Version, a.Kind, a.Name)
	}
}

func (m *storedManifests) addPlural(group, version, kind, plural string) {
	key := property.GVK{Group: group, Version: version, Kind: kind}
	if _, ok := m.plurals[key]; !ok && plural != "" {
		m.plurals[key] = plural
	}
}

// requiredAPIPlurals are the plurals of the APIs a CSV requires, as opm's loader reads them.
func requiredAPIPlurals(crds []csvSpecCRDDescription, apis []csvSpecAPIServiceDescription) map[property.GVK]string {
	out := map[property.GVK]string{}
	for _, d := range crds {
		if plural, group, ok := strings.Cut(d.Name, "."); ok {
			key := property.GVK{Group: group, Version: d.Version, Kind: d.Kind}
			if _, seen := out[key]; !seen && plural != "" {
				out[key] = plural
			}
		}
	}
	for _, a := range apis {
		key := property.GVK{Group: a.Group, Version: a.Version, Kind: a.Kind}
		if _, seen := out[key]; !seen && a.Name != "" {
			out[key] = a.Name
		}
	}
	return out
}

func isJSONObjectText(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// bundleColumnBytes joins objects the way opm's loader serializes a bundle: each object followed by a
// newline, no separators.
func bundleColumnBytes(objects [][]byte) []byte {
	if len(objects) == 0 {
		return nil
	}
	n := 0
	for _, o := range objects {
		n += len(o) + 1
	}
	out := make([]byte, 0, n)
	for _, o := range objects {
		out = append(out, o...)
		out = append(out, '\n')
	}
	return out
}
