package bundledir

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// The published bundle operators/eventing-kogito/1.2.0 of community-operators-prod has its
// dependency's fields indented beside value: instead of under it.
const kogitoDeps = `---
dependencies:
  - type: olm.package
    value:
    packageName: knative-eventing-operator
    version: ">=0.20.0"
`

// TestMalformedDependencies renders etcd 0.9.4 (whose opm render.json is in the corpus) with a
// dependencies.yaml written by the test and compares the blob with what opm v1.72 renders for it.
//
// The expectation follows opm's code path for `opm render DIR`: alpha/action Render.renderBundleDirectory
// -> registry.NewImageInput -> bundleParser.Parse -> addMetadata, which decodes each metadata file
// into a registry.DependenciesFile ({type string, value json.RawMessage} entries) with decodeFileFS
// (apimachinery's YAMLOrJSONDecoder, sigs.k8s.io/yaml, non-strict) and silently skips a file that does
// not decode; then registry.ObjectsAndPropertiesFromBundle, which json.Unmarshals olm.package and
// olm.gvk values into property.Package / property.GVK (a null value decodes to the zero value
// without error; a missing value is an error) and builds olm.package.required / olm.gvk.required
// from them, copies other types as they are, and sorts all properties by type, then value bytes.
// So the blob is opm's render.json for the bundle without the file plus the properties listed.
func TestMalformedDependencies(t *testing.T) {
	cases := []struct {
		name, deps string
		add        []string // properties opm adds to the blob, as opm builds them
		warnLine   int
		warn       []string // parts of the one warning
	}{
		{"kogito: fields beside an empty value", kogitoDeps,
			[]string{`{"type":"olm.package.required","value":{"packageName":"","versionRange":""}}`},
			3, []string{"metadata/dependencies.yaml", "dependency 1 (type olm.package) has no readable value (packageName and version are not under value:)", "opm renders it as an olm.package.required with an empty packageName and versionRange"}},
		{"kogito plus a good entry", kogitoDeps + "  - type: olm.gvk\n    value:\n      group: eventing.knative.dev\n      kind: Broker\n      version: v1\n",
			[]string{`{"type":"olm.package.required","value":{"packageName":"","versionRange":""}}`, `{"type":"olm.gvk.required","value":{"group":"eventing.knative.dev","kind":"Broker","version":"v1"}}`},
			3, []string{"dependency 1 (type olm.package)"}},
		{"value between the levels: not YAML", "dependencies:\n  - type: olm.package\n  value:\n    packageName: knative-eventing-operator\n    version: \">=0.20.0\"\n",
			nil, 2, []string{"not valid YAML", "opm ignores the whole file (none of its dependencies reach the bundle)"}},
		{"version beside value", "dependencies:\n  - type: olm.package\n    value:\n      packageName: knative-eventing-operator\n    version: \">=0.20.0\"\n",
			[]string{`{"type":"olm.package.required","value":{"packageName":"knative-eventing-operator","versionRange":""}}`},
			2, []string{"dependency 1 (type olm.package) has version beside value:, not under it; opm ignores it"}},
		{"gvk fields beside value", "dependencies:\n- type: olm.gvk\n  value:\n  group: g\n  kind: K\n  version: v1\n",
			[]string{`{"type":"olm.gvk.required","value":{"group":"","kind":"","version":""}}`},
			2, []string{"dependency 1 (type olm.gvk) has no readable value (group, kind and version are not under value:)"}},
		{"label beside value", "dependencies:\n  - type: olm.label\n    value:\n    label: beta\n",
			[]string{`{"type":"olm.label","value":null}`},
			2, []string{"dependency 1 (type olm.label) has no value (label is not under value:)"}},
		{"dependencies not a list", "dependencies:\n  type: olm.package\n  value: {packageName: a, version: \">1.0.0\"}\n",
			nil, 1, []string{"dependencies is not a list", "opm ignores the whole file"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyBundle(t, "etcd-0.9.4")
			if err := os.WriteFile(filepath.Join(dir, "metadata", "dependencies.yaml"), []byte(tc.deps), 0o644); err != nil {
				t.Fatal(err)
			}
			want := opmRenderWith(t, "etcd-0.9.4", tc.add)
			b, err := Parse(dir)
			if err != nil {
				t.Fatal(err)
			}
			blob, err := b.Render("")
			if err != nil {
				t.Fatal(err)
			}
			if got := renderJSON(t, blob); !bytes.Equal(got, want) {
				t.Errorf("render differs from opm's:\n%s", diffBlobs(t, got, want))
			}
			if len(b.Warnings) != 1 {
				t.Fatalf("want 1 warning, got %v", b.Warnings)
			}
			w := b.Warnings[0]
			if w.File != filepath.Join(dir, "metadata", "dependencies.yaml") || w.Line != tc.warnLine {
				t.Errorf("warning at %s:%d, want %s:%d", w.File, w.Line, filepath.Join(dir, "metadata", "dependencies.yaml"), tc.warnLine)
			}
			for _, part := range tc.warn {
				if !strings.Contains(w.String(), part) {
					t.Errorf("warning %q lacks %q", w, part)
				}
			}
			r := Validate(dir, ValidateOptions{})
			if r.Errors() != 0 || !hasFinding(r, SeverityWarning, w.Message) {
				t.Errorf("validate: want the warning and no error, got %v", r.Findings)
			}
			if r := Validate(dir, ValidateOptions{Strict: true}); !hasFinding(r, SeverityError, w.Message) {
				t.Errorf("validate --strict: want the warning as an error, got %v", r.Findings)
			}
		})
	}
}

// TestDependenciesOpmRefuses: where opm's render fails (a package dependency without a value, or
// with a value that is not a map), Parse fails too, naming the file and the entry's line.
func TestDependenciesOpmRefuses(t *testing.T) {
	for deps, want := range map[string]string{
		"dependencies:\n- type: olm.package\nvalue:\n  packageName: a\n  version: \">1.0.0\"\n": "dependencies.yaml:2: dependency 1 (type olm.package) has no value (the value: at line 3 is at the top level of the file, outside the entry)",
		"dependencies:\n  - type: olm.gvk\n    value: [a, b]\n":                                 "dependencies.yaml:2: dependency 1 (type olm.gvk): value cannot be read",
	} {
		dir := copyBundle(t, "etcd-0.9.4")
		if err := os.WriteFile(filepath.Join(dir, "metadata", "dependencies.yaml"), []byte(deps), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse of\n%s: got %v, want %q", deps, err, want)
		}
	}
}

// opmRenderWith is opm's render.json for a corpus bundle, with properties inserted where opm's sort
// (by type, then value bytes, olm.bundle.object last) puts them.
func opmRenderWith(t *testing.T, name string, add []string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformance, "bundles", name, "render.json"))
	if err != nil {
		t.Skipf("corpus render.json of %s absent: %v", name, err)
	}
	var b fbc.Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(renderJSON(t, b), data) {
		t.Fatal("render.json does not survive fbc.Write: cannot derive expectations from it")
	}
	key := func(p fbc.Property) (string, string) {
		var c bytes.Buffer
		_ = json.Compact(&c, p.Value)
		return p.Type, c.String()
	}
	for _, raw := range add {
		var p fbc.Property
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			t.Fatal(err)
		}
		pt, pv := key(p)
		i := slices.IndexFunc(b.Properties, func(q fbc.Property) bool {
			qt, qv := key(q)
			return qt == "olm.bundle.object" || cmp.Or(cmp.Compare(qt, pt), cmp.Compare(qv, pv)) > 0
		})
		if i < 0 {
			i = len(b.Properties)
		}
		b.Properties = slices.Insert(b.Properties, i, p)
	}
	return renderJSON(t, b)
}
