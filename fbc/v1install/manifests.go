package v1install

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/jsonscan"
)

// registryV1 is the part of operator-controller's bundle.RegistryV1 its installer judges: the
// ClusterServiceVersion's install modes, owned APIServices and CRDs, deployments and webhooks, the
// bundle's CRDs and its other objects.
type registryV1 struct {
	packageName string
	csv         csvSpec
	crds        []crd
	others      []object
}

type csvSpec struct {
	installModes     []installMode
	ownedAPIServices int
	ownedCRDs        []string
	deployments      []string // strategy deployment spec names
	webhooks         []webhook
}

type installMode struct {
	Type      string
	Supported bool
}

type webhook struct {
	Type           string
	GenerateName   string
	DeploymentName string
	Rules          []webhookRule
	ConversionCRDs []string
}

type webhookRule struct {
	APIGroups []string
	Resources []string
}

type crd struct {
	name                  string
	preserveUnknownFields bool
}

type object struct{ kind, name string }

// Manifests are read as operator-controller reads a bundle directory: each manifest decoded
// (YAML or JSON) to an unstructured object, the ClusterServiceVersion and CustomResourceDefinitions
// converted to their Go types (runtime.DefaultUnstructuredConverter: field names match exactly,
// as written in the API types, unknown fields are ignored, a value of the wrong type is an error),
// the last CSV winning. fields and the readers below do the same on the JSON text, without
// decoding what the installer never reads (icons, descriptions, the pod templates).

// fieldSet holds the values of the keys asked of a JSON object (nil when absent), and how many
// keys the object has.
type fieldSet struct {
	keys []string
	vals [][]byte
	n    int
}

func (f fieldSet) get(key string) ([]byte, bool) {
	for i, k := range f.keys {
		if k == key {
			return f.vals[i], f.vals[i] != nil
		}
	}
	return nil, false
}

// fields finds the values of keys in a JSON object, keys matched exactly and the last occurrence
// winning, as a map decoding sees them; every value is checked to be valid JSON as it is passed.
// null is an empty object (the converter leaves a struct zero for null); anything else that is
// not an object is an error.
func fields(raw []byte, path string, keys ...string) (fieldSet, error) {
	f := fieldSet{keys: keys, vals: make([][]byte, len(keys))}
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) {
		return f, fmt.Errorf("%s: value is missing", path)
	}
	if raw[i] == 'n' && string(bytes.TrimSpace(raw[i:])) == "null" {
		return f, nil
	}
	if raw[i] != '{' {
		return f, fmt.Errorf("%s: want an object", path)
	}
	i++
	for {
		i = jsonscan.SkipSpace(raw, i)
		if i < len(raw) && raw[i] == '}' && f.n == 0 {
			return f, nil
		}
		if i >= len(raw) || raw[i] != '"' {
			return f, fmt.Errorf("%s: not valid JSON", path)
		}
		end, escaped, ok := jsonscan.StringContentEnd(raw, i+1)
		if !ok {
			return f, fmt.Errorf("%s: not valid JSON", path)
		}
		n := end + 1 - i
		key := raw[i+1 : end]
		if escaped {
			var k string
			if err := json.Unmarshal(raw[i:i+n], &k); err != nil {
				return f, fmt.Errorf("%s: %v", path, err)
			}
			key = []byte(k)
		}
		i = jsonscan.SkipSpace(raw, i+n)
		if i >= len(raw) || raw[i] != ':' {
			return f, fmt.Errorf("%s: not valid JSON", path)
		}
		i = jsonscan.SkipSpace(raw, i+1)
		m, ok := jsonscan.ValidValueEnd(raw[i:])
		if !ok || m == 0 {
			return f, fmt.Errorf("%s: not valid JSON", path)
		}
		f.n++
		for k, want := range keys {
			if string(key) == want {
				f.vals[k] = raw[i : i+m]
			}
		}
		i = jsonscan.SkipSpace(raw, i+m)
		if i < len(raw) && raw[i] == ',' {
			i++
			continue
		}
		if i < len(raw) && raw[i] == '}' {
			return f, nil
		}
		return f, fmt.Errorf("%s: not valid JSON", path)
	}
}

// elements splits a JSON array into its raw elements; null (or absent) is none.
func elements(raw []byte, path string) ([][]byte, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, fmt.Errorf("%s: want an array", path)
	}
	var els [][]byte
	i := jsonscan.SkipSpace(raw, 1)
	if i < len(raw) && raw[i] == ']' {
		return nil, nil
	}
	for {
		n, ok := jsonscan.ValidValueEnd(raw[i:])
		if !ok {
			return nil, fmt.Errorf("%s: not valid JSON", path)
		}
		els = append(els, raw[i:i+n])
		i = jsonscan.SkipSpace(raw, i+n)
		switch {
		case i < len(raw) && raw[i] == ',':
			i = jsonscan.SkipSpace(raw, i+1)
		case i < len(raw) && raw[i] == ']':
			return els, nil
		default:
			return nil, fmt.Errorf("%s: not valid JSON", path)
		}
	}
}

func str(f fieldSet, key, path string) (string, error) {
	raw, ok := f.get(key)
	if !ok || string(raw) == "null" {
		return "", nil
	}
	return stringValue(raw, path+"."+key)
}

// stringValue decodes a raw JSON string (a valid one: fields and elements checked it).
func stringValue(raw []byte, path string) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("%s: want a string", path)
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: want a string", path)
	}
	return s, nil
}

func boolean(f fieldSet, key, path string) (bool, error) {
	v, _ := f.get(key)
	switch raw := string(v); raw {
	case "", "null", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("%s.%s: want a boolean", path, key)
}

func strs(f fieldSet, key, path string) ([]string, error) {
	v, _ := f.get(key)
	els, err := elements(v, path+"."+key)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(els))
	for i, e := range els {
		if string(e) == "null" {
			out = append(out, "")
			continue
		}
		s, err := stringValue(e, fmt.Sprintf("%s.%s[%d]", path, key, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// objectsOf walks the objects at key (an array of objects), calling each with its fields.
func objectsOf(f fieldSet, key, path string, keys []string, each func(fieldSet, string) error) error {
	v, _ := f.get(key)
	els, err := elements(v, path+"."+key)
	if err != nil {
		return err
	}
	for i, e := range els {
		p := fmt.Sprintf("%s.%s[%d]", path, key, i)
		ef, err := fields(e, p, keys...)
		if err != nil {
			return err
		}
		if err := each(ef, p); err != nil {
			return err
		}
	}
	return nil
}

// sub is the fields of the object at key (an absent or null value is an empty object).
func sub(f fieldSet, key, path string, keys ...string) (fieldSet, error) {
	raw, ok := f.get(key)
	if !ok {
		return fieldSet{keys: keys, vals: make([][]byte, len(keys))}, nil
	}
	return fields(raw, path+"."+key, keys...)
}

// readCSV reads what the installer judges of a ClusterServiceVersion manifest.
func readCSV(f fieldSet) (csvSpec, error) {
	var c csvSpec
	spec, err := sub(f, "spec", "ClusterServiceVersion", "installModes", "apiservicedefinitions", "customresourcedefinitions", "install", "webhookdefinitions")
	if err != nil {
		return c, err
	}
	const p = "ClusterServiceVersion.spec"
	err = objectsOf(spec, "installModes", p, []string{"type", "supported"}, func(m fieldSet, path string) error {
		t, err := str(m, "type", path)
		if err != nil {
			return err
		}
		s, err := boolean(m, "supported", path)
		c.installModes = append(c.installModes, installMode{Type: t, Supported: s})
		return err
	})
	if err != nil {
		return c, err
	}
	api, err := sub(spec, "apiservicedefinitions", p, "owned")
	if err != nil {
		return c, err
	}
	ownedAPIs, _ := api.get("owned")
	owned, err := elements(ownedAPIs, p+".apiservicedefinitions.owned")
	if err != nil {
		return c, err
	}
	c.ownedAPIServices = len(owned)
	crds, err := sub(spec, "customresourcedefinitions", p, "owned")
	if err != nil {
		return c, err
	}
	err = objectsOf(crds, "owned", p+".customresourcedefinitions", []string{"name"}, func(m fieldSet, path string) error {
		n, err := str(m, "name", path)
		c.ownedCRDs = append(c.ownedCRDs, n)
		return err
	})
	if err != nil {
		return c, err
	}
	install, err := sub(spec, "install", p, "spec")
	if err != nil {
		return c, err
	}
	strategySpec, err := sub(install, "spec", p+".install", "deployments")
	if err != nil {
		return c, err
	}
	err = objectsOf(strategySpec, "deployments", p+".install.spec", []string{"name"}, func(m fieldSet, path string) error {
		n, err := str(m, "name", path)
		c.deployments = append(c.deployments, n)
		return err
	})
	if err != nil {
		return c, err
	}
	err = objectsOf(spec, "webhookdefinitions", p, []string{"type", "generateName", "deploymentName", "conversionCRDs", "rules"}, func(m fieldSet, path string) error {
		var w webhook
		var err error
		if w.Type, err = str(m, "type", path); err != nil {
			return err
		}
		if w.GenerateName, err = str(m, "generateName", path); err != nil {
			return err
		}
		if w.DeploymentName, err = str(m, "deploymentName", path); err != nil {
			return err
		}
		if w.ConversionCRDs, err = strs(m, "conversionCRDs", path); err != nil {
			return err
		}
		err = objectsOf(m, "rules", path, []string{"apiGroups", "resources"}, func(r fieldSet, rpath string) error {
			var rule webhookRule
			var err error
			if rule.APIGroups, err = strs(r, "apiGroups", rpath); err != nil {
				return err
			}
			rule.Resources, err = strs(r, "resources", rpath)
			w.Rules = append(w.Rules, rule)
			return err
		})
		c.webhooks = append(c.webhooks, w)
		return err
	})
	return c, err
}

// errNoCSV is source.FromFS's error for a bundle directory without a ClusterServiceVersion.
var errNoCSV = errors.New(`no ClusterServiceVersion found in "manifests"`)

// fromObjects reads a bundle from its olm.bundle.object manifests, as operator-controller reads
// the bundle directory they make up. A manifest that cannot be read is an error in olmcat's words
// (operator-controller's would name a file of the unpacked image).
type objectReader struct {
	rv1   *registryV1
	found bool
	n     int
}

// objectKeys are the keys of a manifest the installer reads.
var objectKeys = []string{"kind", "apiVersion", "metadata", "spec"}

func (r *objectReader) add(data []byte) error {
	r.n++
	where := fmt.Sprintf("olm.bundle.object %d", r.n)
	f, err := fields(data, where, objectKeys...) // checks the whole manifest is JSON, as it goes
	if err != nil {
		j, yerr := yaml.YAMLToJSON(data) // the bundle directory may hold YAML
		if yerr != nil {
			return fmt.Errorf("error parsing objects in %s: %v", where, yerr)
		}
		if f, err = fields(j, where, objectKeys...); err != nil {
			return fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
	}
	kind, err := str(f, "kind", where)
	if err != nil {
		return fmt.Errorf("error parsing objects in %s: %v", where, err)
	}
	apiVersion, err := str(f, "apiVersion", where)
	if err != nil {
		return fmt.Errorf("error parsing objects in %s: %v", where, err)
	}
	if kind == "" {
		return fmt.Errorf("error parsing objects in %s: Object 'Kind' is missing", where)
	}
	if apiVersion == "" {
		return fmt.Errorf("error parsing objects in %s: Object 'apiVersion' is missing", where)
	}
	meta, err := sub(f, "metadata", where, "name")
	if err != nil {
		return fmt.Errorf("error parsing objects in %s: %v", where, err)
	}
	name, err := str(meta, "name", where+".metadata")
	if err != nil {
		return fmt.Errorf("error parsing objects in %s: %v", where, err)
	}
	switch kind {
	case "ClusterServiceVersion":
		c, err := readCSV(f)
		if err != nil {
			return fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		r.rv1.csv, r.found = c, true // the last CSV wins
	case "CustomResourceDefinition":
		spec, err := sub(f, "spec", "CustomResourceDefinition", "preserveUnknownFields")
		if err != nil {
			return fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		// v1beta1's *bool and v1's bool both read as a bool; null and absent are false
		preserve, err := boolean(spec, "preserveUnknownFields", "CustomResourceDefinition.spec")
		if err != nil {
			return fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		r.rv1.crds = append(r.rv1.crds, crd{name: name, preserveUnknownFields: preserve})
	default:
		r.rv1.others = append(r.rv1.others, object{kind: kind, name: name})
	}
	return nil
}

func (r *objectReader) done() (*registryV1, error) {
	if !r.found {
		return nil, errNoCSV
	}
	return r.rv1, nil
}

// decodePool holds the buffers manifests are decoded into: a bundle's manifests are most of its
// bytes, and nothing read from them keeps their memory (names are copied).
var decodePool = sync.Pool{New: func() any { return new([]byte) }}

// decodeObject decodes an olm.bundle.object value into buf when it is {"data": "BASE64"} with
// any white space (opm writes it indented) and a string without escapes; anything else goes
// through property.DecodeBundleObject, for its result or its error.
func decodeObject(raw []byte, buf *[]byte) ([]byte, error) {
	if f, err := fields(raw, "", "data"); err == nil && f.n == 1 {
		if text, ok := f.get("data"); ok && len(text) >= 2 && text[0] == '"' {
			text = text[1 : len(text)-1]
			if bytes.IndexByte(text, '\\') < 0 {
				need := base64.StdEncoding.DecodedLen(len(text))
				if cap(*buf) < need {
					*buf = make([]byte, need)
				}
				if n, err := base64.StdEncoding.Decode((*buf)[:need], text); err == nil {
					return (*buf)[:n], nil
				}
			}
		}
	}
	o, err := property.DecodeBundleObject(raw)
	return o.Data, err
}

// fromCSVMetadata is the bundle a CSV skeleton made of olm.csv.metadata stands for: its install
// modes and owned APIServices are judged; it has no deployments, webhooks or CRDs, so the rules
// about those cannot be.
func fromCSVMetadata(pkg string, raw []byte) (*registryV1, error) {
	var m csvmeta.Metadata
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("olm.csv.metadata: %v", err)
	}
	rv1 := &registryV1{packageName: pkg}
	for _, im := range m.InstallModes {
		rv1.csv.installModes = append(rv1.csv.installModes, installMode{Type: im.Type, Supported: im.Supported})
	}
	rv1.csv.ownedAPIServices = len(m.APIServiceDefinitions.Owned)
	return rv1, nil
}

// bundleSource picks what a bundle is judged from: its olm.bundle.object manifests where it has
// any, else its olm.csv.metadata, else nothing.
func bundleSource(b *fbc.Bundle) (Source, *registryV1, error) {
	var metadata []byte
	objects := 0
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypeBundleObject:
			objects++
		case property.TypeCSVMetadata:
			if metadata == nil {
				metadata = p.Value
			}
		}
	}
	switch {
	case objects > 0:
		buf := decodePool.Get().(*[]byte)
		defer decodePool.Put(buf)
		r := objectReader{rv1: &registryV1{packageName: b.Package}}
		for _, p := range b.Properties {
			if p.Type != property.TypeBundleObject {
				continue
			}
			data, err := decodeObject(p.Value, buf)
			if err != nil {
				return SourceBundleObject, nil, fmt.Errorf("olm.bundle.object %d: %v", r.n+1, err)
			}
			if err := r.add(data); err != nil {
				return SourceBundleObject, nil, err
			}
		}
		rv1, err := r.done()
		return SourceBundleObject, rv1, err
	case metadata != nil:
		rv1, err := fromCSVMetadata(b.Package, metadata)
		return SourceCSVMetadata, rv1, err
	}
	return SourceNone, nil, nil
}
