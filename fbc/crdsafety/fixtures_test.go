package crdsafety

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// Hand-written CRD pairs, one or two per check of the preflight. The base CRD has one version v1
// whose spec has a field of each kind a check looks at; a case edits a copy of it for the old
// (installed) and the new bundle.

type object = map[string]any

func baseSpecSchema() object {
	return object{
		"type":     "object",
		"required": []any{"mode"},
		"properties": object{
			"mode":     object{"type": "string", "enum": []any{"a", "b"}},
			"size":     object{"type": "integer", "minimum": 1, "maximum": 10},
			"name":     object{"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$"},
			"tags":     object{"type": "array", "minItems": 1, "maxItems": 5, "items": object{"type": "string"}},
			"labels":   object{"type": "object", "minProperties": 1, "maxProperties": 5, "additionalProperties": object{"type": "string"}},
			"replicas": object{"type": "integer", "default": 1},
			"note":     object{"type": "string", "description": "a note"},
			"opt":      object{"type": "string"},
			"choice": object{"type": "object",
				"oneOf":      []any{object{"required": []any{"x"}}, object{"required": []any{"y"}}},
				"properties": object{"x": object{"type": "string"}, "y": object{"type": "string"}}},
		},
	}
}

func crdVersion(name string, served, storage bool, spec object) object {
	return object{"name": name, "served": served, "storage": storage, "schema": object{"openAPIV3Schema": object{
		"type": "object", "properties": object{"spec": spec}}}}
}

func baseCRD() object {
	return object{
		"apiVersion": APIVersionV1, "kind": "CustomResourceDefinition",
		"metadata": object{"name": "widgets.example.com"},
		"spec": object{
			"group": "example.com", "scope": "Namespaced",
			"names":    object{"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
			"versions": []any{crdVersion("v1", true, true, baseSpecSchema())},
		},
	}
}

// specOf is the spec schema of the CRD's first version.
func specOf(crd object) object {
	v := crd["spec"].(object)["versions"].([]any)[0].(object)
	return v["schema"].(object)["openAPIV3Schema"].(object)["properties"].(object)["spec"].(object)
}

func prop(crd object, name string) object { return specOf(crd)["properties"].(object)[name].(object) }

// fixture is one upgrade: the old and new bundle's CRD, and whether the new bundle's CSV converts
// it with a webhook.
type fixture struct {
	name           string
	old, new       func(crd object)
	newWebhook     bool
	oldCRD, newCRD func() object // replace the base CRD altogether when set
}

func (f fixture) crds() (object, object) {
	o, n := baseCRD(), baseCRD()
	if f.oldCRD != nil {
		o = f.oldCRD()
	}
	if f.newCRD != nil {
		n = f.newCRD()
	}
	if f.old != nil {
		f.old(o)
	}
	if f.new != nil {
		f.new(n)
	}
	return o, n
}

func csvObject(name string, webhook bool) object {
	csv := object{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": object{"name": name},
		"spec": object{
			"installModes": []any{object{"type": "AllNamespaces", "supported": true}},
			"install":      object{"strategy": "deployment", "spec": object{"deployments": []any{}}},
		}}
	if webhook {
		csv["spec"].(object)["webhookdefinitions"] = []any{object{
			"type": "ConversionWebhook", "deploymentName": "widget-operator", "containerPort": 9443,
			"generateName": "cwidgets.example.com", "sideEffects": "None", "admissionReviewVersions": []any{"v1"},
			"webhookPath": "/convert", "conversionCRDs": []any{"widgets.example.com"}}}
	}
	return csv
}

func bundleObject(t testing.TB, obj object) fbc.Property {
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := json.Marshal(map[string]string{"data": base64.StdEncoding.EncodeToString(data)})
	return fbc.Property{Type: "olm.bundle.object", Value: v}
}

// bundles are the fixture's old (v1.0.0) and new (v2.0.0) bundles, in package "case-NAME".
func (f fixture) bundles(t testing.TB) (*fbc.Bundle, *fbc.Bundle) {
	o, n := f.crds()
	pkg := "case-" + f.name
	mk := func(version string, crd object, webhook bool) *fbc.Bundle {
		name := pkg + ".v" + version
		pv, _ := json.Marshal(map[string]string{"packageName": pkg, "version": version})
		return &fbc.Bundle{Schema: fbc.SchemaBundle, Name: name, Package: pkg, Image: "example.com/" + pkg + ":" + version,
			Properties: []fbc.Property{{Type: "olm.package", Value: pv}, bundleObject(t, csvObject(name, webhook)), bundleObject(t, crd)}}
	}
	return mk("1.0.0", o, false), mk("2.0.0", n, f.newWebhook)
}

// TestDumpFixtures writes the fixtures as an FBC catalog (one package per case, v2.0.0 replacing
// v1.0.0) to $CRDSAFETY_DUMP, for the program that records operator-controller's verdicts on them
// (see the expectations in checks_test.go). Skipped without the variable.
func TestDumpFixtures(t *testing.T) {
	dir := os.Getenv("CRDSAFETY_DUMP")
	if dir == "" {
		t.Skip("set CRDSAFETY_DUMP=DIR to write the fixtures as an FBC catalog")
	}
	for _, f := range fixtures {
		ob, nb := f.bundles(t)
		pkg := ob.Package
		var blobs []any
		blobs = append(blobs, object{"schema": "olm.package", "name": pkg, "defaultChannel": "stable"},
			object{"schema": "olm.channel", "package": pkg, "name": "stable",
				"entries": []any{object{"name": ob.Name}, object{"name": nb.Name, "replaces": ob.Name}}})
		for _, b := range []*fbc.Bundle{ob, nb} {
			blobs = append(blobs, object{"schema": "olm.bundle", "name": b.Name, "package": pkg, "image": b.Image, "properties": b.Properties})
		}
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Create(filepath.Join(dir, pkg, "catalog.json"))
		if err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(fh)
		for _, b := range blobs {
			if err := enc.Encode(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("wrote", len(fixtures), "packages to", dir)
}

func twoVersions(first, second object) func() object {
	return func() object {
		crd := baseCRD()
		crd["spec"].(object)["versions"] = []any{first, second}
		return crd
	}
}

func narrowedMode(spec object) object {
	spec["properties"].(object)["mode"].(object)["enum"] = []any{"a"}
	return spec
}

var fixtures = []fixture{
	{name: "same"},
	{name: "scope", new: func(c object) { c["spec"].(object)["scope"] = "Cluster" }},
	{name: "stored-version-removed",
		oldCRD: twoVersions(crdVersion("v1alpha1", true, true, baseSpecSchema()), crdVersion("v1", true, false, baseSpecSchema())),
		newCRD: func() object {
			crd := baseCRD()
			return crd
		}},
	{name: "unstored-version-removed",
		oldCRD: twoVersions(crdVersion("v1", true, true, baseSpecSchema()), crdVersion("v1alpha1", true, false, baseSpecSchema()))},
	{name: "field-removed", new: func(c object) { delete(specOf(c)["properties"].(object), "opt") }},
	{name: "field-added", new: func(c object) { specOf(c)["properties"].(object)["extra"] = object{"type": "string"} }},
	{name: "enum-narrowed", new: func(c object) { prop(c, "mode")["enum"] = []any{"a"} }},
	{name: "enum-widened", new: func(c object) { prop(c, "mode")["enum"] = []any{"a", "b", "c"} }},
	{name: "enum-added", new: func(c object) { prop(c, "opt")["enum"] = []any{"x"} }},
	{name: "required-added", new: func(c object) { specOf(c)["required"] = []any{"mode", "size", "name"} }},
	{name: "required-dropped", new: func(c object) { specOf(c)["required"] = []any{} }},
	{name: "maximum-lowered", new: func(c object) { prop(c, "size")["maximum"] = 5 }},
	{name: "maximum-raised", new: func(c object) { prop(c, "size")["maximum"] = 20 }},
	{name: "maximum-added", new: func(c object) { prop(c, "replicas")["maximum"] = 3 }},
	{name: "minimum-raised", new: func(c object) { prop(c, "size")["minimum"] = 2 }},
	{name: "minimum-lowered", new: func(c object) { prop(c, "size")["minimum"] = 0 }},
	{name: "maxlength-lowered", new: func(c object) { prop(c, "name")["maxLength"] = 10 }},
	{name: "minlength-raised", new: func(c object) { prop(c, "name")["minLength"] = 2 }},
	{name: "lengths-loosened", new: func(c object) { prop(c, "name")["minLength"] = 0; prop(c, "name")["maxLength"] = 30 }},
	{name: "maxitems-lowered", new: func(c object) { prop(c, "tags")["maxItems"] = 3 }},
	{name: "minitems-raised", new: func(c object) { prop(c, "tags")["minItems"] = 2 }},
	{name: "items-loosened", new: func(c object) { prop(c, "tags")["minItems"] = 0; prop(c, "tags")["maxItems"] = 9 }},
	{name: "maxproperties-lowered", new: func(c object) { prop(c, "labels")["maxProperties"] = 3 }},
	{name: "minproperties-raised", new: func(c object) { prop(c, "labels")["minProperties"] = 2 }},
	{name: "properties-loosened", new: func(c object) {
		prop(c, "labels")["minProperties"] = 0
		prop(c, "labels")["maxProperties"] = 9
	}},
	{name: "default-changed", new: func(c object) { prop(c, "replicas")["default"] = 2 }},
	{name: "default-added", new: func(c object) { prop(c, "opt")["default"] = "x" }},
	{name: "default-removed", new: func(c object) { delete(prop(c, "replicas"), "default") }},
	{name: "type-changed", new: func(c object) { prop(c, "opt")["type"] = "integer" }},
	{name: "pattern-changed", new: func(c object) { prop(c, "name")["pattern"] = "^[a-z0-9]+$" }},
	{name: "pattern-added", new: func(c object) { prop(c, "opt")["pattern"] = "^x" }},
	{name: "pattern-removed", new: func(c object) { delete(prop(c, "name"), "pattern") }},
	{name: "nullable-added", new: func(c object) { prop(c, "opt")["nullable"] = true }},
	{name: "nullable-removed", old: func(c object) { prop(c, "opt")["nullable"] = true }},
	{name: "oneof-added-alternative", new: func(c object) {
		prop(c, "choice")["oneOf"] = []any{object{"required": []any{"x"}}, object{"required": []any{"y"}}, object{"required": []any{"z"}}}
	}},
	{name: "oneof-removed-alternative", new: func(c object) { prop(c, "choice")["oneOf"] = []any{object{"required": []any{"x"}}} }},
	{name: "description-changed", new: func(c object) { prop(c, "note")["description"] = "another note" }},
	{name: "format-added", new: func(c object) { prop(c, "opt")["format"] = "date-time" }},
	{name: "served-versions-differ",
		newCRD: twoVersions(crdVersion("v1", true, true, baseSpecSchema()), crdVersion("v2", true, false, narrowedMode(baseSpecSchema())))},
	{name: "served-versions-differ-webhook", newWebhook: true,
		newCRD: twoVersions(crdVersion("v1", true, true, baseSpecSchema()), crdVersion("v2", true, false, narrowedMode(baseSpecSchema())))},
	{name: "served-versions-differed-before",
		oldCRD: twoVersions(crdVersion("v1", true, true, baseSpecSchema()), crdVersion("v2", true, false, narrowedMode(baseSpecSchema()))),
		newCRD: twoVersions(crdVersion("v1", true, true, baseSpecSchema()), crdVersion("v2", true, false, narrowedMode(baseSpecSchema())))},
	{name: "served-version-unserved",
		newCRD: twoVersions(crdVersion("v1", true, true, baseSpecSchema()), crdVersion("v2", false, false, narrowedMode(baseSpecSchema())))},
}
