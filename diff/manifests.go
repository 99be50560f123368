package diff

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/plural"
)

// manifests is what a bundle's olm.bundle.object and olm.csv.metadata properties say, decoded.
type manifests struct {
	objects     map[string]any // "Kind/name" (or "ref:path") -> decoded object
	csvKey      string         // key of the ClusterServiceVersion object, "" when none
	csvMetadata map[string]any // the olm.csv.metadata value, nil when none
	undecodable []string       // olm.bundle.object values that are not a manifest
}

func decodeManifests(props []fbc.Property) *manifests {
	m := &manifests{objects: map[string]any{}}
	for _, p := range props {
		switch p.Type {
		case property.TypeBundleObject:
			key, obj, err := decodeBundleObject(p.Value)
			if err != nil {
				m.undecodable = append(m.undecodable, err.Error())
				continue
			}
			for base, n := key, 2; m.objects[key] != nil; n++ {
				key = fmt.Sprintf("%s#%d", base, n)
			}
			m.objects[key] = obj
			if strings.HasPrefix(key, "ClusterServiceVersion/") && m.csvKey == "" {
				m.csvKey = key
			}
		case property.TypeCSVMetadata:
			if v, err := decodeJSON(p.Value); err == nil && m.csvMetadata == nil {
				m.csvMetadata, _ = v.(map[string]any)
			}
		}
	}
	return m
}

// decodeBundleObject decodes one olm.bundle.object value: base64 data holding a JSON (or YAML)
// manifest, or a ref to a file.
func decodeBundleObject(raw json.RawMessage) (string, any, error) {
	var bo property.BundleObject
	if err := json.Unmarshal(raw, &bo); err != nil {
		return "", nil, fmt.Errorf("olm.bundle.object value does not decode: %v", err)
	}
	if bo.Ref != "" && len(bo.Data) == 0 {
		return "ref:" + bo.Ref, bo.Ref, nil
	}
	data := bo.Data
	if j, err := yaml.YAMLToJSON(data); err == nil {
		data = j
	}
	v, err := decodeJSON(data)
	if err != nil {
		return "", nil, fmt.Errorf("olm.bundle.object data is not a JSON or YAML manifest: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", nil, fmt.Errorf("olm.bundle.object data is not an object")
	}
	kind, _ := obj["kind"].(string)
	name := ""
	if meta, ok := obj["metadata"].(map[string]any); ok {
		name, _ = meta["name"].(string)
	}
	return kind + "/" + name, obj, nil
}

// representation names how a bundle carries its manifests.
func (m *manifests) representation() string {
	switch {
	case len(m.objects) > 0 || len(m.undecodable) > 0:
		return "olm.bundle.object (" + plural.Of(len(m.objects)+len(m.undecodable), "object") + ")"
	case m.csvMetadata != nil:
		return "olm.csv.metadata"
	}
	return ""
}

// csvView is the CSV metadata the bundle shows, whichever way it is stored; nil when it has none.
func (m *manifests) csvView() map[string]any {
	if m.csvMetadata != nil {
		return m.csvMetadata
	}
	if m.csvKey == "" {
		return nil
	}
	csv, _ := m.objects[m.csvKey].(map[string]any)
	view := map[string]any{}
	for _, f := range csvMetadataFields {
		if v, ok := lookup(csv, f.path...); ok {
			view[f.name] = v
		}
	}
	return view
}

// csvMetadataFields are the fields of olm.csv.metadata and where each comes from in a CSV.
var csvMetadataFields = []struct {
	name string
	path []string
}{
	{"annotations", []string{"metadata", "annotations"}},
	{"apiServiceDefinitions", []string{"spec", "apiservicedefinitions"}},
	{"crdDescriptions", []string{"spec", "customresourcedefinitions"}},
	{"description", []string{"spec", "description"}},
	{"displayName", []string{"spec", "displayName"}},
	{"installModes", []string{"spec", "installModes"}},
	{"keywords", []string{"spec", "keywords"}},
	{"labels", []string{"metadata", "labels"}},
	{"links", []string{"spec", "links"}},
	{"maintainers", []string{"spec", "maintainers"}},
	{"maturity", []string{"spec", "maturity"}},
	{"minKubeVersion", []string{"spec", "minKubeVersion"}},
	{"nativeAPIs", []string{"spec", "nativeAPIs"}},
	{"provider", []string{"spec", "provider"}},
}

func lookup(v any, path ...string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// compareManifests compares the bundle objects and CSV metadata of two versions of a bundle. A switch
// between olm.bundle.object and olm.csv.metadata is one finding, followed only by the metadata that
// really differs.
func compareManifests(mk func(Kind) Finding, old, new []fbc.Property) []Finding {
	om, nm := decodeManifests(old), decodeManifests(new)
	or, nr := om.representation(), nm.representation()
	var out []Finding
	viewsTrimmed := false
	if or != "" && nr != "" && (len(om.objects) > 0) != (len(nm.objects) > 0) {
		f := mk(RepresentationChanged)
		f.Old, f.New = or, nr
		f.Message = fmt.Sprintf("bundle manifests stored as %s instead of %s", nr, or)
		out = append(out, f)
		viewsTrimmed = true
	} else {
		out = append(out, compareObjects(mk, om, nm)...)
	}
	ov, nv := om.csvView(), nm.csvView()
	if ov != nil && nv != nil {
		out = append(out, compareCSVViews(mk, ov, nv, viewsTrimmed || (om.csvMetadata == nil) != (nm.csvMetadata == nil))...)
	} else if (om.csvMetadata == nil) != (nm.csvMetadata == nil) && !viewsTrimmed {
		// an olm.csv.metadata property appeared or went away (changes of objects are reported above)
		f := mk(PropertyRemoved)
		f.Message = "bundle property olm.csv.metadata removed"
		if om.csvMetadata == nil {
			f = mk(PropertyAdded)
			f.Message = "bundle property olm.csv.metadata added"
		}
		f.Field = property.TypeCSVMetadata
		out = append(out, f)
	}
	return out
}

func compareObjects(mk func(Kind) Finding, om, nm *manifests) []Finding {
	var out []Finding
	for _, key := range unionKeys(om.objects, nm.objects) {
		o, inOld := om.objects[key]
		n, inNew := nm.objects[key]
		switch {
		case !inOld:
			f := mk(BundleObjectAdded)
			f.Field = key
			f.Message = fmt.Sprintf("bundle object %s added", key)
			out = append(out, f)
		case !inNew:
			f := mk(BundleObjectRemoved)
			f.Field = key
			f.Message = fmt.Sprintf("bundle object %s removed", key)
			out = append(out, f)
		default:
			var skip map[string]bool
			if key == om.csvKey && key == nm.csvKey {
				skip = csvMetadataPaths // compared through the CSV metadata view
			}
			paths := changedPaths(o, n, "", 2, skip)
			if len(paths) == 0 {
				continue
			}
			f := mk(BundleObjectChanged)
			f.Field = key
			f.Message = fmt.Sprintf("bundle object %s changed at %s", key, strings.Join(paths, ", "))
			out = append(out, f)
		}
	}
	kinds := changeKinds{BundleObjectAdded, BundleObjectRemoved, ""}
	out = append(out, compareValues(mk, property.TypeBundleObject, kinds, "undecodable bundle object", om.undecodable, nm.undecodable)...)
	return out
}

var csvMetadataPaths = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range csvMetadataFields {
		m[strings.Join(f.path, ".")] = true
	}
	return m
}()

// changedPaths lists the dotted paths, down to depth levels, where two decoded JSON values differ.
func changedPaths(a, b any, prefix string, depth int, skip map[string]bool) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok || depth == 0 {
		if encodeCanonical(a) == encodeCanonical(b) {
			return nil
		}
		if prefix == "" {
			return []string{"(whole object)"}
		}
		return []string{prefix}
	}
	var out []string
	for _, k := range unionKeys(am, bm) {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if skip[path] {
			continue
		}
		av, ain := am[k]
		bv, bin := bm[k]
		if ain != bin {
			out = append(out, path)
			continue
		}
		out = append(out, changedPaths(av, bv, path, depth-1, skip)...)
	}
	return out
}

// compareCSVViews reports each CSV metadata field that differs. Empty values count as absent, and
// when the two views were stored differently, CRD and API service descriptions are compared on the
// fields olm.csv.metadata keeps.
func compareCSVViews(mk func(Kind) Finding, ov, nv map[string]any, trim bool) []Finding {
	var out []Finding
	for _, field := range unionKeys(ov, nv) {
		o, n := normalizeView(field, ov[field], trim), normalizeView(field, nv[field], trim)
		oc, nc := encodeCanonical(o), encodeCanonical(n)
		if oc == nc {
			continue
		}
		f := mk(CSVMetadataChanged)
		f.Field = field
		if o != nil {
			f.Old = shortValue(displayValue(o))
		}
		if n != nil {
			f.New = shortValue(displayValue(n))
		}
		f.Message = fmt.Sprintf("CSV metadata field %s changed", field)
		out = append(out, f)
	}
	return out
}

// descriptionKeys are the keys olm.csv.metadata keeps of each CRD or API service description.
var descriptionKeys = map[string]map[string]bool{
	"crdDescriptions":       {"name": true, "version": true, "kind": true, "displayName": true, "description": true},
	"apiServiceDefinitions": {"name": true, "group": true, "version": true, "kind": true, "displayName": true, "description": true},
}

func normalizeView(field string, v any, trim bool) any {
	if keep := descriptionKeys[field]; trim && keep != nil {
		if m, ok := v.(map[string]any); ok {
			trimmed := map[string]any{}
			for side, list := range m {
				items, _ := list.([]any)
				var kept []any
				for _, item := range items {
					im, ok := item.(map[string]any)
					if !ok {
						kept = append(kept, item)
						continue
					}
					small := map[string]any{}
					for k, x := range im {
						if keep[k] {
							small[k] = x
						}
					}
					kept = append(kept, small)
				}
				trimmed[side] = kept
			}
			v = trimmed
		}
	}
	return dropEmpty(v)
}

// dropEmpty removes empty strings, lists, objects and nulls, recursively; nil when nothing is left.
func dropEmpty(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case string:
		if t == "" {
			return nil
		}
	case []any:
		var out []any
		for _, x := range t {
			if y := dropEmpty(x); y != nil {
				out = append(out, y)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if y := dropEmpty(x); y != nil {
				out[k] = y
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// displayValue shows a decoded JSON string as its text and anything else as canonical JSON.
func displayValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return encodeCanonical(v)
}
