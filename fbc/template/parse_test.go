package template_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/templatetest"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ typ, doc, want string }{
		{"", "entries: []\n", "auto-detecting template type: template input missing required 'schema' field"},
		{"", "", "auto-detecting template type: decoding template input: EOF"},
		{"", "SCHEMA: olm.template.basic\nentries: 3\n", "rendering template: unmarshalling template: json: cannot unmarshal number into Go struct field .entries of type []json.RawMessage"},
		{"fancy", "schema: olm.semver\n", `invalid template type "fancy", must be one of: [basic semver substitutes]`},
		{"semver", "schema: olm.template.basic\nentries: []\n", `rendering template: render: unable to read file: error unmarshaling JSON: while decoding JSON: json: unknown field "entries"`},
		{"", "schema: olm.semver\nGenerateMinorChannels: true\nDefaultChannelTypePreference: major\n",
			"rendering template: render: unable to read file: schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels"},
		{"", "schema: olm.semver\nDefaultChannelTypePreference: patch\n", "rendering template: render: unable to read file: unknown DefaultChannelTypePreference: \"patch\"\nValid values are 'major' or 'minor'"},
		{"basic", "schema: olm.semver\n", `rendering template: template has unknown schema ("olm.semver"), should be "olm.template.basic"`},
	} {
		_, err := template.Parse(tc.typ, []byte(tc.doc))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q, %q):\n got %v\nwant %s", tc.typ, tc.doc, err, tc.want)
		}
	}
}

func TestParseFirstDocumentOnly(t *testing.T) {
	doc := "---\n# comment\nschema: olm.semver\nstable:\n  bundles:\n  - image: a\n---\nschema: olm.template.basic\n"
	tmpl, err := template.Parse("", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Semver == nil || len(tmpl.Semver.Stable) != 1 || !tmpl.Semver.GenerateMinorChannels || tmpl.Semver.DefaultChannelTypePreference != "minor" {
		t.Errorf("got %+v", tmpl.Semver)
	}
	json := `{"schema": "olm.template.basic", "entries": [{"schema": "olm.bundle", "image": "x"}]} {"schema": "olm.semver"}`
	tmpl, err = template.Parse("", []byte(json))
	if err != nil || tmpl.Basic == nil || len(tmpl.Basic.Entries) != 1 || strings.Join(tmpl.Refs(), ",") != "x" {
		t.Errorf("JSON stream: %+v, %v", tmpl, err)
	}
}

// FuzzParseTemplate: any input parses or gives an error, never a panic; a parsed template has
// exactly one type, and its refs are well defined.
func FuzzParseTemplate(f *testing.F) {
	root := templatetest.Root(f)
	files, _ := filepath.Glob(filepath.Join(root, "*", "*", "template.yaml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 64<<10 {
			f.Add("", data)
		}
	}
	f.Add("semver", []byte("Schema: olm.semver\nStable: {Bundles: [{Image: a}, {Image: a}]}\n"))
	f.Add("substitutes", []byte(`{"schema":"olm.template.substitutes","entries":[],"substitutions":[{"name":"i","base":"b"}]}`))
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		tmpl, err := template.Parse(typ, data)
		if err != nil {
			return
		}
		n := 0
		for _, set := range []bool{tmpl.Basic != nil, tmpl.Semver != nil, tmpl.Substitutes != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("parsed template has %d types", n)
		}
		_ = tmpl.Refs()
		_ = tmpl.Schema()
	})
}
