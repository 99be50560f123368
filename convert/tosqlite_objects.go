package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc/property"
)

// storedManifests are a bundle's olm.bundle.object manifests as the operatorbundle row stores them.
type storedManifests struct {
	objects [][]byte // each one JSON object, in property order
	csv     []byte   // the first ClusterServiceVersion among objects, nil if none
	csvInfo *storedObject
	plurals map[property.GVK]string // provided APIs known from CRD objects and the CSV
}

// readStoredManifests decodes the bundle objects, each once. Objects that cannot be stored are
// reported; YAML objects are stored as JSON (the bundle column is a stream of JSON objects).
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
		obj, ok := decodeStoredObject(data)
		if !ok {
			converted, err := yaml.YAMLToJSON(data)
			if err == nil {
				obj, ok = decodeStoredObject(converted)
			}
			if !ok {
				f := at
				f.Kind, f.Detail = KindBundleObjectInvalid, fmt.Sprintf("olm.bundle.object #%d is not a JSON or YAML object; left out of the bundle column", i)
				r.loss(f)
				continue
			}
			f := at
			f.Kind, f.Detail = KindObjectYAMLToJSON, fmt.Sprintf("olm.bundle.object #%d is YAML; stored as JSON (keys sorted)", i)
			r.change(f)
			data = converted
		}
		switch obj.Kind {
		case "ClusterServiceVersion":
			if m.csv == nil {
				m.csv, m.csvInfo = data, obj
			}
		case "CustomResourceDefinition":
			for _, v := range obj.Spec.Versions {
				m.addPlural(obj.Spec.Group, v.Name, obj.Spec.Names.Kind, obj.Spec.Names.Plural)
			}
			if obj.Spec.Version != "" {
				m.addPlural(obj.Spec.Group, obj.Spec.Version, obj.Spec.Names.Kind, obj.Spec.Names.Plural)
			}
		}
		m.objects = append(m.objects, data)
	}
	if m.csvInfo != nil {
		m.addDescriptionPlurals(m.csvInfo.Spec.CRDs.Owned, m.csvInfo.Spec.APIServices.Owned)
	}
	return m
}

// decodeStoredObject reads what the conversion needs from one manifest in a single pass. It fails
// only when data is not a JSON object; a field of an unexpected type just stays empty.
func decodeStoredObject(data []byte) (*storedObject, bool) {
	if len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	var obj storedObject
	if err := json.Unmarshal(data, &obj); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return nil, false
		}
	}
	return &obj, true
}

// addDescriptionPlurals adds the plurals a CSV's owned API descriptions name: the first segment of
// a CRD description's name, and an APIService description's name (as opm's loader takes them).
// CRD objects, read first, win.
func (m *storedManifests) addDescriptionPlurals(crds, apis []apiDescriptionRef) {
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
func requiredAPIPlurals(crds, apis []apiDescriptionRef) map[property.GVK]string {
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
