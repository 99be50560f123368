package v1install

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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

// fields maps each key of a JSON object to its raw value, keys matched exactly and the last
// occurrence winning, as a map decoding sees them. null is an empty object (the converter leaves a
// struct zero for null); anything else that is not an object is an error.
func fields(raw []byte, path string) (map[string][]byte, error) {
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) {
		return nil, fmt.Errorf("%s: value is missing", path)
	}
	if string(raw[i:]) == "null" || strings.TrimSpace(string(raw[i:])) == "null" {
		return map[string][]byte{}, nil
	}
	if raw[i] != '{' {
		return nil, fmt.Errorf("%s: want an object", path)
	}
	out := map[string][]byte{}
	i++
	for {
		i = jsonscan.SkipSpace(raw, i)
		if i < len(raw) && raw[i] == '}' {
			return out, nil
		}
		if i >= len(raw) || raw[i] != '"' {
			return nil, fmt.Errorf("%s: not valid JSON", path)
		}
		n, ok := jsonscan.StringEnd(raw[i:])
		if !ok {
			return nil, fmt.Errorf("%s: not valid JSON", path)
		}
		key := string(raw[i+1 : i+n-1])
		if strings.IndexByte(key, '\\') >= 0 {
			if err := json.Unmarshal(raw[i:i+n], &key); err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
		}
		i = jsonscan.SkipSpace(raw, i+n)
		if i >= len(raw) || raw[i] != ':' {
			return nil, fmt.Errorf("%s: not valid JSON", path)
		}
		i = jsonscan.SkipSpace(raw, i+1)
		m, ok := jsonscan.ValueEnd(raw[i:])
		if !ok || m == 0 {
			return nil, fmt.Errorf("%s: not valid JSON", path)
		}
		out[key] = raw[i : i+m]
		i = jsonscan.SkipSpace(raw, i+m)
		if i < len(raw) && raw[i] == ',' {
			i++
			continue
		}
		if i < len(raw) && raw[i] == '}' {
			return out, nil
		}
		return nil, fmt.Errorf("%s: not valid JSON", path)
	}
}

// elements splits a JSON array into its raw elements; null (or absent) is none.
func elements(raw []byte, path string) ([][]byte, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var out []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' {
		return nil, fmt.Errorf("%s: want an array", path)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	els := make([][]byte, len(out))
	for i, e := range out {
		els[i] = e
	}
	return els, nil
}

func str(f map[string][]byte, key, path string) (string, error) {
	raw, ok := f[key]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%s.%s: want a string", path, key)
	}
	return s, nil
}

func boolean(f map[string][]byte, key, path string) (bool, error) {
	switch raw := string(f[key]); raw {
	case "", "null", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("%s.%s: want a boolean", path, key)
}

func strs(f map[string][]byte, key, path string) ([]string, error) {
	els, err := elements(f[key], path+"."+key)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(els))
	for i, e := range els {
		var s string
		if len(e) == 0 || e[0] != '"' || json.Unmarshal(e, &s) != nil {
			if string(e) == "null" {
				out = append(out, "")
				continue
			}
			return nil, fmt.Errorf("%s.%s[%d]: want a string", path, key, i)
		}
		out = append(out, s)
	}
	return out, nil
}

// objectsOf walks the objects at key (an array of objects), calling each with its fields.
func objectsOf(f map[string][]byte, key, path string, each func(map[string][]byte, string) error) error {
	els, err := elements(f[key], path+"."+key)
	if err != nil {
		return err
	}
	for i, e := range els {
		p := fmt.Sprintf("%s.%s[%d]", path, key, i)
		ef, err := fields(e, p)
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
func sub(f map[string][]byte, key, path string) (map[string][]byte, error) {
	raw, ok := f[key]
	if !ok {
		return map[string][]byte{}, nil
	}
	return fields(raw, path+"."+key)
}

// readCSV reads what the installer judges of a ClusterServiceVersion manifest.
func readCSV(f map[string][]byte) (csvSpec, error) {
	var c csvSpec
	spec, err := sub(f, "spec", "ClusterServiceVersion")
	if err != nil {
		return c, err
	}
	const p = "ClusterServiceVersion.spec"
	err = objectsOf(spec, "installModes", p, func(m map[string][]byte, path string) error {
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
	api, err := sub(spec, "apiservicedefinitions", p)
	if err != nil {
		return c, err
	}
	owned, err := elements(api["owned"], p+".apiservicedefinitions.owned")
	if err != nil {
		return c, err
	}
	c.ownedAPIServices = len(owned)
	crds, err := sub(spec, "customresourcedefinitions", p)
	if err != nil {
		return c, err
	}
	err = objectsOf(crds, "owned", p+".customresourcedefinitions", func(m map[string][]byte, path string) error {
		n, err := str(m, "name", path)
		c.ownedCRDs = append(c.ownedCRDs, n)
		return err
	})
	if err != nil {
		return c, err
	}
	install, err := sub(spec, "install", p)
	if err != nil {
		return c, err
	}
	strategySpec, err := sub(install, "spec", p+".install")
	if err != nil {
		return c, err
	}
	err = objectsOf(strategySpec, "deployments", p+".install.spec", func(m map[string][]byte, path string) error {
		n, err := str(m, "name", path)
		c.deployments = append(c.deployments, n)
		return err
	})
	if err != nil {
		return c, err
	}
	err = objectsOf(spec, "webhookdefinitions", p, func(m map[string][]byte, path string) error {
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
		err = objectsOf(m, "rules", path, func(r map[string][]byte, rpath string) error {
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
func fromObjects(pkg string, manifests [][]byte) (*registryV1, error) {
	rv1 := &registryV1{packageName: pkg}
	found := false
	for n, data := range manifests {
		where := fmt.Sprintf("olm.bundle.object %d", n+1)
		if !json.Valid(data) {
			j, err := yaml.YAMLToJSON(data)
			if err != nil {
				return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
			}
			data = j
		}
		f, err := fields(data, where)
		if err != nil {
			return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		kind, err := str(f, "kind", where)
		if err != nil {
			return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		apiVersion, err := str(f, "apiVersion", where)
		if err != nil {
			return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		if kind == "" {
			return nil, fmt.Errorf("error parsing objects in %s: Object 'Kind' is missing", where)
		}
		if apiVersion == "" {
			return nil, fmt.Errorf("error parsing objects in %s: Object 'apiVersion' is missing", where)
		}
		meta, err := sub(f, "metadata", where)
		if err != nil {
			return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		name, err := str(meta, "name", where+".metadata")
		if err != nil {
			return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
		}
		switch kind {
		case "ClusterServiceVersion":
			c, err := readCSV(f)
			if err != nil {
				return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
			}
			rv1.csv, found = c, true
		case "CustomResourceDefinition":
			spec, err := sub(f, "spec", "CustomResourceDefinition")
			if err != nil {
				return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
			}
			// v1beta1's *bool and v1's bool both read as a bool; null and absent are false
			preserve, err := boolean(spec, "preserveUnknownFields", "CustomResourceDefinition.spec")
			if err != nil {
				return nil, fmt.Errorf("error parsing objects in %s: %v", where, err)
			}
			rv1.crds = append(rv1.crds, crd{name: name, preserveUnknownFields: preserve})
		default:
			rv1.others = append(rv1.others, object{kind: kind, name: name})
		}
	}
	if !found {
		return nil, errNoCSV
	}
	return rv1, nil
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
	var manifests [][]byte
	var metadata []byte
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypeBundleObject:
			o, err := property.DecodeBundleObject(p.Value)
			if err != nil {
				return SourceBundleObject, nil, fmt.Errorf("olm.bundle.object %d: %v", len(manifests)+1, err)
			}
			manifests = append(manifests, o.Data)
		case property.TypeCSVMetadata:
			if metadata == nil {
				metadata = p.Value
			}
		}
	}
	switch {
	case len(manifests) > 0:
		rv1, err := fromObjects(b.Package, manifests)
		return SourceBundleObject, rv1, err
	case metadata != nil:
		rv1, err := fromCSVMetadata(b.Package, metadata)
		return SourceCSVMetadata, rv1, err
	}
	return SourceNone, nil, nil
}
