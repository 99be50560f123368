package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const sharedConformance = "../../../shared/conformance"

// wholeDocument reads a YAML document whole, as opm does: the reference the split must equal.
func wholeDocument(doc []byte) (json.RawMessage, error) {
	var raw json.RawMessage
	err := noPanic(func() error { return yaml.Unmarshal(doc, &raw) })
	return raw, err
}

// realTemplates are the basic and substitutes templates of the conformance corpora: real
// repositories' templates and opm's template cases.
func realTemplates(t *testing.T) map[string][]byte {
	t.Helper()
	var files []string
	for _, pattern := range []string{
		"templates-real/*/catalog-templates/*.yaml",
		"templates/render/*/*.yaml", "templates/render/*/*.yml", "templates/render/*/*.json",
		"templates/errors/*/*.yaml",
	} {
		found, _ := filepath.Glob(filepath.Join(sharedConformance, pattern))
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Skipf("conformance corpus not available (%s): no templates found", sharedConformance)
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = data
	}
	return out
}

// TestSplitEqualsWholeOnRealTemplates: every real basic and semver template is read item by
// item, and gives the JSON and the entry and bundle lines the whole document gives.
func TestSplitEqualsWholeOnRealTemplates(t *testing.T) {
	split := 0
	for name, data := range realTemplates(t) {
		doc, _, _ := cutFirstDocument(data)
		got, ok := splitDocument(doc)
		schema, _ := DetectSchema(data)
		if (schema == SchemaBasic || schema == SchemaSemver) && strings.Contains(name, "templates-real") && !ok {
			t.Errorf("%s: a real %s template is not read item by item", name, schema)
		}
		if !ok {
			continue
		}
		split++
		want, err := wholeDocument(doc)
		if err != nil {
			t.Errorf("%s: split read what the whole read refuses: %v", name, err)
			continue
		}
		if !bytes.Equal(got.json, want) {
			t.Errorf("%s: the split JSON differs from the whole document's", name)
		}
		if lines := findLines(data); lines != nil && (!reflect.DeepEqual(lines.Entries, got.lines.Entries) || lines.Document != got.lines.Document ||
			!reflect.DeepEqual(lines.Substitutions, got.lines.Substitutions) || !reflect.DeepEqual(lines.Bundles, got.lines.Bundles)) {
			t.Errorf("%s: lines %+v, the node parser's %+v", name, got.lines, lines)
		}
	}
	if split == 0 {
		t.Error("no template was read item by item")
	}
}

// cutFirstDocument is the text of the first document, as firstYAMLDocument cuts it.
func cutFirstDocument(data []byte) ([]byte, bool, error) {
	content := false
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		if isSeparator(data[pos:next]) {
			if content {
				return data[:pos], true, nil
			}
		} else {
			content = true
		}
		pos = next
	}
	return data, content, nil
}

// TestSplitShapes: the documents the split reads give the whole document's JSON, and the ones it
// must not read (anchors, tags, merge keys, keys spelled twice, tabs, odd indentation) are read
// whole.
func TestSplitShapes(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		split     bool
	}{
		{"plain", "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: p\n- schema: olm.channel\n  package: p\n  name: c\n  entries:\n  - name: a\n", true},
		{"indented items, comments, CRLF", "# t\r\nschema: olm.template.basic\r\nentries: # all\r\n  # first\r\n  - schema: olm.package\r\n    name: p\r\n\r\n  -\r\n    schema: olm.bundle\r\n    image: x\r\n", true},
		{"items then a key", "entries:\n- a: 1\n- b: 2\nschema: olm.template.basic\n", true},
		{"document marker", "---\nschema: olm.template.basic\nentries:\n- a: 1\n", true},
		{"anchor", "schema: olm.template.basic\nentries:\n- &a {schema: x}\n- *a\n", false},
		{"merge key", "schema: olm.template.basic\nentries:\n- <<: {schema: x}\n", false},
		{"tag", "schema: olm.template.basic\nentries:\n- !!map {schema: x}\n", false},
		{"flow sequence", "schema: olm.template.basic\nentries: [{schema: x}]\n", true},
		{"flow on next line", "schema: olm.template.basic\nentries:\n  [{schema: x}]\n", false},
		{"Entries spelled twice", "schema: olm.template.basic\nentries:\n- a: 1\nEntries:\n- b: 2\n", false},
		{"tab indent", "schema: olm.template.basic\nentries:\n-\ta: 1\n\t- b\n", false},
		{"quoted key", "\"schema\": olm.template.basic\nentries:\n- a: 1\n", false},
		{"bad item", "schema: olm.template.basic\nentries:\n- a: [1\n- b: 2]\n", false},
		{"block scalar", "schema: olm.template.basic\nentries:\n- description: |\n    - not an item\n    text\n  name: x\n", true},
		{"semver, opm's spelling", "Schema: olm.semver\nGenerateMajorChannels: true\nCandidate:\n  Bundles:\n  - Image: a\n  # c\n  - Image: b\nStable:\n  bundles:\n    - image: c\n\nfast:\n  bundles:\n  - {image: d}\n", true},
		{"semver, another key beside bundles", "schema: olm.semver\ncandidate:\n  bundles:\n  - image: a\n  other: 1\n", false},
		{"semver, candidate twice", "schema: olm.semver\ncandidate:\n  bundles:\n  - image: a\nCandidate:\n  bundles:\n  - image: b\n", false},
		{"semver, a key twice in a bundle", "schema: olm.semver\ncandidate:\n  bundles:\n  - image: a\n    image: b\n", false},
		{"semver, a key twice in the header", "schema: olm.semver\nschema: olm.semver\ncandidate:\n  bundles:\n  - image: a\n", false},
		{"semver, flow bundles", "schema: olm.semver\ncandidate:\n  bundles: [{image: a}]\n", false},
	} {
		got, ok := splitDocument([]byte(tc.doc))
		if ok != tc.split {
			t.Errorf("%s: split %v, want %v", tc.name, ok, tc.split)
		}
		if !ok {
			continue
		}
		want, err := wholeDocument([]byte(tc.doc))
		if err != nil || !bytes.Equal(got.json, want) {
			t.Errorf("%s: split %s, whole %s (%v)", tc.name, got.json, want, err)
		}
	}
}

// FuzzSplitDocument: whenever the split reads a document, it reads what the whole document reads,
// byte for byte.
func FuzzSplitDocument(f *testing.F) {
	f.Add("schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: p\n- name: \"a\n  b\"\n")
	f.Add("entries:\n  - a: 1\n  - |\n    x\n  -\n    - y\nsubstitutions:\n- name: a\n  base: b\nschema: olm.template.substitutes\n")
	f.Add("schema: x\nentries:\n- a: 'it''s'\n- b: \"q\\\"\"\n- c: {d: [1, 2.0, yes, on, 0x1f, ~]}\n")
	f.Add("entries:\n- a: b\n  c: d\n- - e\n  - f\n-\n")
	f.Add("schema: olm.semver\ncandidate:\n  Bundles:\n  - image: a\n  -\n    image: 'b'\nstable:\n  bundles:\n    - image: c\n      x: [1]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 1<<16 {
			return
		}
		got, ok := splitDocument([]byte(doc))
		if !ok {
			return
		}
		want, err := wholeDocument([]byte(doc))
		if err != nil {
			t.Fatalf("split read a document the whole read refuses (%v):\n%q\nsplit: %s", err, doc, got.json)
		}
		if !bytes.Equal(got.json, want) {
			t.Fatalf("split and whole differ on\n%q\nsplit: %s\nwhole: %s", doc, got.json, want)
		}
	})
}

// BenchmarkParseLargeBasic parses a generated 17 MB basic template; -benchmem shows what it holds.
func BenchmarkParseLargeBasic(b *testing.B) {
	data := largeBasic(2000, 100)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("", data); err != nil {
			b.Fatal(err)
		}
	}
}

// largeBasic is a basic template of one package with channels × entries channel entries.
func largeBasic(channels, entries int) []byte {
	var sb strings.Builder
	sb.WriteString("schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: p\n  defaultChannel: c0\n")
	for c := range channels {
		fmt.Fprintf(&sb, "- schema: olm.channel\n  package: p\n  name: c%d\n  entries:\n", c)
		for e := range entries {
			fmt.Fprintf(&sb, "  - name: p.v%d.%d.0\n    replaces: p.v%d.%d.0\n    skipRange: '>=0.0.0 <%d.%d.0'\n", c, e, c, e-1, c, e)
		}
	}
	return []byte(sb.String())
}

// TestLargeBasicIsSplit: the generated large template is read item by item, with the entries the
// whole read gives.
func TestLargeBasicIsSplit(t *testing.T) {
	data := largeBasic(50, 20)
	got, ok := splitDocument(data)
	if !ok {
		t.Fatal("not read item by item")
	}
	want, err := wholeDocument(data)
	if err != nil || !bytes.Equal(got.json, want) {
		t.Fatalf("split differs from whole (%v)", err)
	}
	if len(got.lines.Entries) != 51 || got.lines.Entries[1] != 6 {
		t.Errorf("entry lines %v", got.lines.Entries[:min(3, len(got.lines.Entries))])
	}
}

// TestSemverReadOnceAsWhole: a semver template read item by item parses to the template, the
// lines and the errors the whole text gives (parseSemver, findLines).
func TestSemverReadOnceAsWhole(t *testing.T) {
	docs := map[string][]byte{
		"opm's spelling":          []byte("Schema: olm.semver\nGenerateMajorChannels: true\nCandidate:\n  Bundles:\n  - Image: a\n  - Image: b\nStable:\n  bundles:\n    - image: c\n"),
		"unknown key in a bundle": []byte("schema: olm.semver\ncandidate:\n  bundles:\n  - image: a\n    imagee: b\n"),
		"unknown top-level key":   []byte("schema: olm.semver\ncandidat:\n  bundles:\n  - image: a\n"),
		"mismatched preference":   []byte("schema: olm.semver\ngenerateMinorChannels: true\ndefaultChannelTypePreference: major\nfast:\n  bundles:\n  - image: a\n"),
		"wrong schema":            []byte("schema: olm.semverr\ncandidate:\n  bundles:\n  - image: a\n"),
	}
	for name, data := range realTemplates(t) {
		if schema, _ := DetectSchema(data); schema == SchemaSemver {
			docs[name] = data
		}
	}
	for name, data := range docs {
		got, err := Parse("semver", data)
		want, wantErr := parseSemver(data)
		if wantErr != nil {
			if err == nil || !strings.Contains(err.Error(), wantErr.Error()) {
				t.Errorf("%s: err %v, the whole text's %v", name, err, wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got.Semver, want) {
			t.Errorf("%s: %+v, the whole text's %+v", name, got.Semver, want)
		}
		if lines := findLines(data); !reflect.DeepEqual(got.Lines, lines) {
			t.Errorf("%s: lines %+v, the node parser's %+v", name, got.Lines, lines)
		}
	}
}
