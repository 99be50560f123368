package v1install_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fbc/v1install"
)

// The cases below hold the rules no recording exercises (webhooks, CRDs, object kinds, names) to
// operator-controller's code at df2c201d: the expected texts are its error formats, most as its
// own tests (validators/validator_test.go, applier/provider_test.go) spell them.

type csvFixture struct {
	modes       map[string]bool // install mode -> supported
	deployments []string
	ownedCRDs   []string
	apiServices int
	webhooks    []map[string]any
}

func (c csvFixture) manifest() []byte {
	var modes []map[string]any
	for _, m := range []string{"AllNamespaces", "MultiNamespace", "OwnNamespace", "SingleNamespace"} {
		if s, ok := c.modes[m]; ok {
			modes = append(modes, map[string]any{"type": m, "supported": s})
		}
	}
	var deps []map[string]any
	for _, d := range c.deployments {
		deps = append(deps, map[string]any{"name": d, "spec": map[string]any{}})
	}
	var owned []map[string]any
	for _, n := range c.ownedCRDs {
		owned = append(owned, map[string]any{"name": n, "version": "v1", "kind": "K"})
	}
	var apis []map[string]any
	for range c.apiServices {
		apis = append(apis, map[string]any{"name": "v1.example.com", "group": "example.com", "version": "v1", "kind": "K"})
	}
	csv := map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]any{"name": "op.v1.0.0"},
		"spec": map[string]any{
			"installModes":              modes,
			"install":                   map[string]any{"strategy": "deployment", "spec": map[string]any{"deployments": deps}},
			"customresourcedefinitions": map[string]any{"owned": owned},
			"apiservicedefinitions":     map[string]any{"owned": apis},
			"webhookdefinitions":        c.webhooks,
		},
	}
	b, _ := json.Marshal(csv)
	return b
}

func crdManifest(name string, preserveUnknownFields bool) []byte {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"preserveUnknownFields": preserveUnknownFields},
	})
	return b
}

func bundleOf(manifests ...[]byte) *fbc.Bundle {
	b := &fbc.Bundle{Schema: fbc.SchemaBundle, Name: "op.v1.0.0", Package: "op",
		Properties: []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: "op", Version: "1.0.0"})}}
	for _, m := range manifests {
		b.Properties = append(b.Properties, property.BuildBundleObject(m))
	}
	return b
}

var allModes = map[string]bool{"AllNamespaces": true, "MultiNamespace": true, "OwnNamespace": true, "SingleNamespace": true}

func validatingWebhook(name, deployment string, groups, resources []string) map[string]any {
	return map[string]any{"type": "ValidatingAdmissionWebhook", "generateName": name, "deploymentName": deployment,
		"rules": []map[string]any{{"apiGroups": groups, "resources": resources, "operations": []string{"CREATE"}, "apiVersions": []string{"v1"}}}}
}

func TestInstallRules(t *testing.T) {
	const dnsMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	const convErr = "bundle contains conversion webhook \"conv\" and supports install modes [AllNamespaces SingleNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode\n" +
		"conversion webhook 'conv' references custom resource definition 'z.example.com' not owned bundle"
	const preserveErr = "custom resource definition 'a.example.com' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion"
	cases := []struct {
		name      string
		bundle    *fbc.Bundle
		wantError string // at default gates; "" = accepted
		wantGate  v1install.GateWatch
		gateError string // with the gate on, when no configuration is accepted
	}{
		{name: "all modes, one deployment", bundle: bundleOf(csvFixture{modes: allModes, deployments: []string{"op"}}.manifest()),
			wantGate: v1install.GateNoConfig},
		{name: "owned APIService", bundle: bundleOf(csvFixture{modes: allModes, apiServices: 1}.manifest()),
			wantError: "unsupported bundle: apiServiceDefintions are not supported",
			gateError: "unsupported bundle: apiServiceDefintions are not supported | {\"watchNamespace\":\"install-namespace\"}: unsupported bundle: apiServiceDefintions are not supported | {\"watchNamespace\":\"another-namespace\"}: unsupported bundle: apiServiceDefintions are not supported"},
		{name: "OwnNamespace only", bundle: bundleOf(csvFixture{modes: map[string]bool{"OwnNamespace": true, "AllNamespaces": false}}.manifest()),
			wantError: "unsupported bundle: bundle does not support AllNamespaces install mode", wantGate: v1install.GateWatchInstallNamespace},
		{name: "SingleNamespace only", bundle: bundleOf(csvFixture{modes: map[string]bool{"SingleNamespace": true}}.manifest()),
			wantError: "unsupported bundle: bundle does not support AllNamespaces install mode", wantGate: v1install.GateWatchOtherNamespace},
		{name: "MultiNamespace only", bundle: bundleOf(csvFixture{modes: map[string]bool{"MultiNamespace": true}}.manifest()),
			wantError: "unsupported bundle: bundle does not support AllNamespaces install mode",
			gateError: "unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes | {\"watchNamespace\":\"install-namespace\"}: unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes | {\"watchNamespace\":\"another-namespace\"}: unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes"},
		{name: "OwnNamespace only with a bad object: the gate refuses each configuration in its own words",
			bundle:    bundleOf(csvFixture{modes: map[string]bool{"OwnNamespace": true}}.manifest(), []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`)),
			wantError: "unsupported bundle: bundle does not support AllNamespaces install mode",
			gateError: `invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing | ` +
				`{"watchNamespace":"install-namespace"}: unsupported resource "d" with kind "Deployment" | ` +
				`{"watchNamespace":"another-namespace"}: invalid ClusterExtension configuration: invalid configuration: invalid format for field "watchNamespace": 'another-namespace' is not valid ownNamespaceInstallMode: invalid value "another-namespace": must be "install-namespace" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`},
		{name: "unsupported kind", bundle: bundleOf(csvFixture{modes: allModes}.manifest(), []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`),
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)),
			wantError: `unsupported resource "d" with kind "Deployment"`},
		{name: "owned CRD missing, duplicate CRD", bundle: bundleOf(csvFixture{modes: allModes, ownedCRDs: []string{"b.example.com", "a.example.com"}}.manifest(),
			crdManifest("a.example.com", false), crdManifest("a.example.com", false)),
			wantError: "bundle contains duplicate custom resource definition 'a.example.com'\ncluster service definition references owned custom resource definition 'b.example.com' not found in bundle"},
		{name: "deployment names", bundle: bundleOf(csvFixture{modes: allModes, deployments: []string{"-bad-name", "ok", "ok"}}.manifest()),
			wantError: "cluster service version contains duplicate strategy deployment spec 'ok'\ninvalid cluster service version strategy deployment name '-bad-name': " + dnsMsg},
		{name: "webhook rules", bundle: bundleOf(csvFixture{modes: allModes, deployments: []string{"op"}, webhooks: []map[string]any{
			validatingWebhook("webhook-a", "op", []string{"*"}, []string{"pods"}),
			validatingWebhook("webhook-b", "op", []string{"admissionregistration.k8s.io"}, []string{"MutatingWebhookConfiguration", "pods"}),
			validatingWebhook("webhook-c", "op", []string{"olm.operatorframework.io"}, []string{"clusterextensions"}),
		}}.manifest()),
			wantError: "webhook \"webhook-a\" contains forbidden rule: admission webhook rules cannot reference API group \"*\"\n" +
				"webhook \"webhook-b\" contains forbidden rule: admission webhook rules cannot reference resource \"MutatingWebhookConfiguration\" for API group \"admissionregistration.k8s.io\"\n" +
				"webhook \"webhook-c\" contains forbidden rule: admission webhook rules cannot reference API group \"olm.operatorframework.io\""},
		{name: "webhook names and deployments", bundle: bundleOf(csvFixture{modes: allModes, deployments: []string{"op"}, webhooks: []map[string]any{
			validatingWebhook("Bad_Name", "op", []string{"apps"}, []string{"deployments"}),
			validatingWebhook("dup", "gone", []string{"apps"}, []string{"deployments"}),
			validatingWebhook("dup", "op", []string{"apps"}, []string{"deployments"}),
		}}.manifest()),
			wantError: "webhook of type 'ValidatingAdmissionWebhook' with name 'dup' references non-existent deployment 'gone'\n" +
				"duplicate webhook 'dup' of type 'ValidatingAdmissionWebhook'\n" +
				"webhook of type 'ValidatingAdmissionWebhook' has invalid name 'Bad_Name': " + dnsMsg},
		{name: "conversion webhook with more than AllNamespaces", bundle: bundleOf(csvFixture{modes: map[string]bool{"AllNamespaces": true, "SingleNamespace": true},
			deployments: []string{"op"}, ownedCRDs: []string{"a.example.com"}, webhooks: []map[string]any{
				{"type": "ConversionWebhook", "generateName": "conv", "deploymentName": "op", "conversionCRDs": []string{"a.example.com", "z.example.com"}},
			}}.manifest(), crdManifest("a.example.com", false)),
			wantError: convErr,
			gateError: convErr + ` | {"watchNamespace":"install-namespace"}: invalid ClusterExtension configuration: invalid configuration: multiple errors found:` +
				"\n  - invalid value for field \"watchNamespace\"\n  - invalid type for field \"watchNamespace\": got string, want null\n" +
				`  - invalid format for field "watchNamespace": 'install-namespace' is not valid singleNamespaceInstallMode: invalid value "install-namespace": must be different from "install-namespace" (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace` +
				` | {"watchNamespace":"another-namespace"}: ` + convErr},
		{name: "conversion webhook of a CRD preserving unknown fields", bundle: bundleOf(csvFixture{modes: map[string]bool{"AllNamespaces": true},
			deployments: []string{"op"}, ownedCRDs: []string{"a.example.com"}, webhooks: []map[string]any{
				{"type": "ConversionWebhook", "generateName": "conv", "deploymentName": "op", "conversionCRDs": []string{"a.example.com"}},
			}}.manifest(), crdManifest("a.example.com", true)),
			wantError: preserveErr,
			gateError: preserveErr + ` | {"watchNamespace":"install-namespace"}: invalid ClusterExtension configuration: invalid configuration: unknown field "watchNamespace"` +
				` | {"watchNamespace":"another-namespace"}: invalid ClusterExtension configuration: invalid configuration: unknown field "watchNamespace"`},
		{name: "no CSV among the manifests", bundle: bundleOf(crdManifest("a.example.com", false)),
			wantError: `no ClusterServiceVersion found in "manifests"`},
		{name: "field names are exact: installmodes is not installModes",
			bundle:    bundleOf([]byte(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"x"},"spec":{"installmodes":[{"type":"AllNamespaces","supported":true}]}}`)),
			wantError: "unsupported bundle: bundle does not support AllNamespaces install mode",
			gateError: "unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes | {\"watchNamespace\":\"install-namespace\"}: unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes | {\"watchNamespace\":\"another-namespace\"}: unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := v1install.Judge(c.bundle)
			if v.Source != v1install.SourceBundleObject {
				t.Errorf("source %q", v.Source)
			}
			if v.Error != c.wantError || v.OK != (c.wantError == "") {
				t.Errorf("default gates:\n got  ok=%v %q\n want %q", v.OK, v.Error, c.wantError)
			}
			wantGate := c.wantGate
			if c.gateError == "" && wantGate == v1install.GateRefused {
				// all modes: every configuration passes the schema, and the validators refuse the same
				e := c.wantError
				wantGateErr := e + " | {\"watchNamespace\":\"install-namespace\"}: " + e + " | {\"watchNamespace\":\"another-namespace\"}: " + e
				if strings.Contains(e, "does not support AllNamespaces") {
					t.Fatal("case must say what the gate does")
				}
				c.gateError = wantGateErr
			}
			if v.Gate != wantGate || v.ErrorWithGate != c.gateError || v.OKWithGate != (wantGate != v1install.GateRefused) {
				t.Errorf("with the gate:\n got  %v ok=%v %q\n want %v %q", v.Gate, v.OKWithGate, v.ErrorWithGate, wantGate, c.gateError)
			}
		})
	}
}

func TestConfigurationsWithTheGate(t *testing.T) {
	ns := v1install.Namespaces{Install: "inst", Other: "other"}
	// AllNamespaces and OwnNamespace: watchNamespace is optional (anyOf null or a namespace with
	// the OwnNamespace format); the bundle is refused by a validator, so each try's words show.
	b := bundleOf(csvFixture{modes: map[string]bool{"AllNamespaces": true, "OwnNamespace": true}}.manifest(),
		[]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`))
	v := v1install.JudgeIn(b, ns)
	want := `unsupported resource "d" with kind "Deployment" | {"watchNamespace":"inst"}: unsupported resource "d" with kind "Deployment" | ` +
		`{"watchNamespace":"other"}: invalid ClusterExtension configuration: invalid configuration: multiple errors found:` +
		"\n  - invalid value for field \"watchNamespace\"\n  - invalid type for field \"watchNamespace\": got string, want null\n" +
		`  - invalid format for field "watchNamespace": 'other' is not valid ownNamespaceInstallMode: invalid value "other": must be "inst" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`
	if v.ErrorWithGate != want {
		t.Errorf("got  %q\nwant %q", v.ErrorWithGate, want)
	}
	// AllNamespaces only: watchNamespace is an unknown field
	b = bundleOf(csvFixture{modes: map[string]bool{"AllNamespaces": true}}.manifest(), []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`))
	v = v1install.JudgeIn(b, ns)
	want = `unsupported resource "d" with kind "Deployment" | {"watchNamespace":"inst"}: invalid ClusterExtension configuration: invalid configuration: unknown field "watchNamespace" | ` +
		`{"watchNamespace":"other"}: invalid ClusterExtension configuration: invalid configuration: unknown field "watchNamespace"`
	if v.ErrorWithGate != want {
		t.Errorf("got  %q\nwant %q", v.ErrorWithGate, want)
	}
	// SingleNamespace only: the install namespace is refused by the format, another is accepted
	b = bundleOf(csvFixture{modes: map[string]bool{"SingleNamespace": true}}.manifest())
	if v = v1install.JudgeIn(b, ns); v.Gate != v1install.GateWatchOtherNamespace || v.GateConfig != `{"watchNamespace":"other"}` {
		t.Errorf("SingleNamespace only: %+v", v)
	}
}

func TestCSVMetadataSource(t *testing.T) {
	b := &fbc.Bundle{Name: "op.v1", Package: "op", Properties: []fbc.Property{
		property.Build(property.TypeCSVMetadata, map[string]any{
			"installModes":          []map[string]any{{"type": "AllNamespaces", "supported": true}},
			"apiServiceDefinitions": map[string]any{"owned": []map[string]any{{"name": "a", "group": "g", "version": "v1", "kind": "K"}}},
			"crdDescriptions":       map[string]any{"owned": []map[string]any{{"name": "not.in.the.skeleton", "version": "v1", "kind": "K"}}},
		}),
	}}
	v := v1install.Judge(b)
	if v.Source != v1install.SourceCSVMetadata || v.Error != "unsupported bundle: apiServiceDefintions are not supported" {
		t.Errorf("%+v", v)
	}
	// neither manifests nor metadata: only the dependency properties are judged
	b = &fbc.Bundle{Name: "op.v2", Package: "op", Properties: []fbc.Property{
		property.Build(property.TypePackageRequired, map[string]string{"packageName": "x", "versionRange": ">=1"}),
	}}
	v = v1install.Judge(b)
	if v.Judged() || v.DependencyError != `bundle "op.v2" has a dependency declared via property "olm.package.required" which is currently not supported` || v.Installable() {
		t.Errorf("%+v", v)
	}
}

func TestNotInstallableFinding(t *testing.T) {
	ok := bundleOf(csvFixture{modes: allModes}.manifest())
	if i := v1install.NotInstallable(ok, v1install.Judge(ok)); i != nil {
		t.Errorf("an installable bundle got %v", i)
	}
	own := bundleOf(csvFixture{modes: map[string]bool{"OwnNamespace": true}}.manifest())
	own.Loc = fbc.Location{File: "op/catalog.json", Line: 7}
	i := v1install.NotInstallable(own, v1install.Judge(own))
	if i == nil || i.Rule != "v1-not-installable" || i.Severity != model.Warning || i.Bundle != own.Name || i.Package != "op" || i.Line != 7 ||
		len(i.OLM) != 1 || i.OLM[0] != model.OLMv1 {
		t.Fatalf("%+v", i)
	}
	for _, want := range []string{"unsupported bundle: bundle does not support AllNamespaces install mode", "olm.bundle.object",
		"SingleOwnNamespaceInstallSupport", "watchNamespace set to the install namespace"} {
		if !strings.Contains(i.Message, want) {
			t.Errorf("message lacks %q: %s", want, i.Message)
		}
	}
	// the checker: the finding, and one webhook note per package
	c := v1install.NewChecker()
	hooks := csvFixture{modes: allModes, deployments: []string{"op"}, webhooks: []map[string]any{validatingWebhook("w", "op", []string{"apps"}, []string{"deployments"})}}
	c.CheckBundle(bundleOf(hooks.manifest()))
	c.CheckBundle(bundleOf(hooks.manifest()))
	c.CheckBundle(own)
	fin := c.Finish()
	rules := map[string]int{}
	for _, i := range fin {
		rules[i.Rule]++
	}
	if len(fin) != 2 || rules["v1-webhooks-need-certificates"] != 1 || rules["v1-not-installable"] != 1 {
		t.Errorf("%v", fin)
	}
}
