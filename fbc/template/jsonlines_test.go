package template

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// jsonTemplates are the JSON templates of the conformance corpora, and some shapes.
func jsonTemplates(t *testing.T) map[string][]byte {
	out := map[string][]byte{
		"basic":      []byte("{\n \"schema\": \"olm.template.basic\",\n \"entries\": [\n  {\"schema\": \"olm.package\", \"name\": \"p\"},\n  \"x\", 1, [2,\n 3], {\"a\": \"}]\\\"\"}\n ]\n}\n"),
		"semver":     []byte("{\"Schema\": \"olm.semver\",\n\"Candidate\": {\"Bundles\": [\n{\"Image\": \"a\"},\n{\"Image\": \"b\"}]},\n\"stable\": {\"bundles\": []},\n\"fast\": 3}\n"),
		"twice":      []byte("{\"entries\": [1,\n2],\n\"Entries\": [\n3]}"),
		"empty":      []byte("\n\n{}\n"),
		"substitute": []byte("{\"schema\":\"olm.template.substitutes\",\"entries\":[{\"schema\":\"olm.bundle\"}],\n\"substitutions\":[\n{\"name\":\"a\",\"base\":\"b\"}]}\n---\n{}"),
	}
	for name, data := range realTemplates(t) {
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' && json.Valid(firstJSONValue(t)) {
			out[name] = data
		}
	}
	return out
}

func firstJSONValue(t []byte) []byte {
	var raw json.RawMessage
	if json.NewDecoder(bytes.NewReader(t)).Decode(&raw) != nil {
		return nil
	}
	return raw
}

// TestJSONLinesAreTheNodeParsers: the lines of a JSON template, found by scanning its text, are
// the ones the YAML node parser finds.
func TestJSONLinesAreTheNodeParsers(t *testing.T) {
	for name, data := range jsonTemplates(t) {
		want := findLines(data)
		if want == nil {
			t.Fatalf("%s: the node parser finds no lines", name)
		}
		if got := jsonLines(data); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lines %+v, the node parser's %+v", name, got, want)
		}
	}
}

// FuzzJSONLines: whenever both read a JSON document, the scan finds the node parser's lines; it
// never panics.
func FuzzJSONLines(f *testing.F) {
	f.Add("{\"schema\": \"olm.template.basic\",\n\"entries\": [\n{\"a\": 1},\n\"s\\\"]\"]}")
	f.Add("{\"candidate\": {\"bundles\": [\n{}, []]}, \"Candidate\": {\"x\": 1}}")
	f.Add("{\"substitutions\": [\n1,\n\n2]}")
	f.Fuzz(func(t *testing.T, doc string) {
		data := []byte(doc)
		if _, _, isJSON, err := readFirstDocument(data); err != nil || !isJSON {
			return
		}
		got := jsonLines(data)
		want := findLines(data)
		if want != nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("on %q: lines %+v, the node parser's %+v", doc, got, want)
		}
	})
}
