package bundledir

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`, `[{"Config":{"Labels":{"a":"b"}}}]`, "a: b\n",
		"FROM scratch\nLABEL a=\"b c\" d='e' \\\n f=g\n", "LABEL a b c\n", "LABEL \"a\\\"b\"=c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		labels, _, err := ParseLabels(data)
		if err == nil && labels == nil {
			t.Fatal("nil labels without an error")
		}
	})
}

// FuzzDecodeManifest: any input either fails cleanly or gives a Kubernetes object whose JSON is
// valid and stable (decoding it again gives the same bytes).
func FuzzDecodeManifest(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n",
		"# comment\n---\napiVersion: v1\nkind: Service\n---\nkind: Second\n",
		`{"apiVersion":"v1","kind":"X","spec":{"n":1.50,"m":1e3}}`,
		"kind: X\nspec:\n  n: 1.0\n  big: 123456789012345678901234\n  t: yes\n",
		"--- # c\nkind: X\n", "- a\n- b\n", "kind: [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := DecodeManifest(data)
		if err != nil {
			return
		}
		if !json.Valid(obj.JSON) || obj.Kind == "" {
			t.Fatalf("invalid result %q for %q", obj.JSON, data)
		}
		again, err := DecodeManifest(obj.JSON)
		if err != nil || string(again.JSON) != string(obj.JSON) {
			t.Fatalf("not stable: %q -> %+v (%v)", obj.JSON, again, err)
		}
	})
}

// FuzzCanonicalShortcut: whenever decodeObject keeps yaml.YAMLToJSON's output as it is
// (isCanonical), the round trip it skips would have given the same bytes.
func FuzzCanonicalShortcut(f *testing.F) {
	for _, s := range []string{
		"kind: X\nspec:\n  n: 1.0\n  big: 123456789012345678901234\n  f: 1e21\n  g: 0.000001\n  t: yes\n",
		"kind: X\nd: '<b> & \"q\" \\\\ \\u2028'\ne: \"\\u2028\\u2029\\x7f\\t\"\n",
		"kind: X\nbad: \"\xff\xfe\"\n", "kind: X\nlit: '\\ufffd'\n", "kind: X\nr: \"\xef\xbf\xbd\"\n",
		"kind: X\nm: {1: a, true: b, 1.5: c, null: d}\n", "- a\n", "x\n", "kind: X\nn: -0\no: 0x1F\np: 0o17\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := yaml.YAMLToJSON(data)
		if err != nil || !isCanonical(j) {
			return
		}
		c, err := canonicalJSON(j)
		if err != nil {
			t.Fatalf("isCanonical(%q) but canonicalJSON fails: %v", j, err)
		}
		if !bytes.Equal(c, j) {
			t.Fatalf("isCanonical(%q) but canonicalJSON gives %q", j, c)
		}
	})
}

// FuzzParseDependencies: any metadata file either fails cleanly or gives entries whose values are
// JSON (or absent) and whose lines lie in the file; checkDependencies then never panics and points
// into the file too.
func FuzzParseDependencies(f *testing.F) {
	for _, s := range []string{
		kogitoDeps,
		"dependencies:\n  - type: olm.package\n  value:\n    packageName: a\n",
		"dependencies:\n- type: olm.package\nvalue:\n  packageName: a\n  version: \">1\"\n",
		"# c\n---\ndependencies:\n  - {type: olm.gvk, value: {group: g, kind: K, version: v1}}\n---\ndependencies: []\n",
		`{"dependencies": [{"type": "olm.label", "value": {"label": "x"}}, null]}`,
		"dependencies:\n  -\n  - type: 1\n    value: [1]\n    Value: x\n", "dependencies: x\n", "- a\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		df, err := ParseDependencies(data)
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if df.Line < 0 || df.Line > lines || df.LaterDocument < 0 || df.LaterDocument > lines {
			t.Fatalf("key line %d / later %d outside %d lines", df.Line, df.LaterDocument, lines)
		}
		for i, e := range df.Entries {
			if e.Line < 0 || e.Line > lines {
				t.Fatalf("entry %d at line %d of %d", i, e.Line, lines)
			}
			if e.Value != nil && !json.Valid(e.Value) {
				t.Fatalf("entry %d: value %q is not JSON", i, e.Value)
			}
		}
		warnings, _ := checkDependencies("f", df)
		for _, w := range warnings {
			if w.Line < 0 || w.Line > lines || w.Message == "" {
				t.Fatalf("warning %+v outside %d lines", w, lines)
			}
		}
	})
}

// FuzzSkim: for any valid JSON, decoding the structs decodeObject and providedAPIs read from the
// skimmed JSON gives what decoding the whole gives (values, and whether it fails).
func FuzzSkim(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"X","metadata":{"name":"n","labels":{"a":"b"}},"spec":{"x":[1,2,{"y":"}"}]}}`,
		`{"spec":{"group":"g","names":{"kind":"K","plural":"ks","Kind":"k2"},"versions":[{"name":"v1","schema":{"a":"\"]}"}},{"Name":"v2"},3],"version":"v0"}}`,
		`{"KIND":"a","kind":"b","Kind":1}`, `{"ſpec":{"group":"g"},"\u006bind":"k","\u212aind":"K"}`, `[1,{"kind":"x"}]`, `"s"`, `null`,
		`{"metadata":"n","spec":{"versions":{"name":"x"}}}`, ` { "kind" : "a" , "metadata" : { "name" : 5 } } `,
	} {
		f.Add([]byte(s))
	}
	type head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var h1, h2 head
		e1, e2 := json.Unmarshal(data, &h1), json.Unmarshal(skim(data, headMembers), &h2)
		if (e1 == nil) != (e2 == nil) || (e1 == nil && h1 != h2) {
			t.Fatalf("head of %s: whole %+v (%v), skimmed %s: %+v (%v)", data, h1, e1, skim(data, headMembers), h2, e2)
		}
		var c1, c2 crdDoc
		e1, e2 = json.Unmarshal(data, &c1), json.Unmarshal(skim(data, crdMembers), &c2)
		if (e1 == nil) != (e2 == nil) || (e1 == nil && !reflect.DeepEqual(c1, c2)) {
			t.Fatalf("crd of %s: whole %+v (%v), skimmed %s: %+v (%v)", data, c1, e1, skim(data, crdMembers), c2, e2)
		}
	})
}
