package fbc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// yamlTestDocs are JSON objects that take every rule of the emitter JSONToYAML writes with: key
// order, plain/single/double/literal styles, folding at column 80, numbers, empty containers,
// nulls, characters it escapes, block scalar hints.
var yamlTestDocs = []string{
	`{}`,
	`{"a":1}`,
	`{"schema":"olm.bundle","name":"op.v1.0.0","package":"op","image":"quay.io/x/y@sha256:abc","properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"g.io","kind":"K","version":"v1"}}],"relatedImages":[]}`,
	`{"b":{},"a":[],"c":[{}],"d":[[]],"e":[[1,2],[{"x":null}]],"f":{"g":{"h":[true,false,null]}}}`,
	`{"k10":1,"k9":2,"k1":3,"K":4,"_":5,"a-b":6,"a_b":7,"a.b":8,"a0":9,"a00":10,"a01":11,"1":12,"01":13,"":14,"é":15,"z":16,"Z":17,"a1b":18,"a1a":19,"a 1":20}`,
	`{"n":[0,-0,1,-1,1.0,1.5,-2.5e10,1e21,1e-7,123456789012345678,9223372036854775807,9223372036854775808,18446744073709551615,18446744073709551616,123456789012345678901234567890,1e400,-1e400,1e-400,0.1,100000000000000000000]}`,
	`{"s":["true","false","yes","no","on","off","y","n","Y","N","null","~","Null","","0","1.5","1_000","0x1F","0o17","0b101","0b-1","-0b1",".5",".inf",".nan","+.INF","1e3","1.2.3","v1.2.3","2006-01-02","2006-1-2T15:04:05Z","2006-01-02 15:04:05","12:30","1:2:3","190:20:30.15","-1:30","+12","-","--","---","...","- x","-x","? x","?x",": x",":x","a: b","a:b","a #b","a#b","#a","@a","%a","&a","*a","!a","|a",">a","'a","\"a","a'b","a\"b","[a","a]","{a","a}",",a","a,b","` + "`a" + `"]}`,
	`{"w":[" a","a ","a  b","\ta","a\tb","a\u0000b","\u001b","\u007f","\u0080","\u0085","\u009f","\u00a0","\u00a0x","\u2028","a\u2028b","a\u2029b","\ufeff","\ufeffab c","a\ufeff","\ufffe","\uffff","\ufffd","é","日本語","😀","a😀b","\\","a\\b","\r","a\rb","a\r\nb"]}`,
	`{"m":["a\nb","a\n","a\n\n","\n","\n\n","\na","  a\nb"," a\nb","a \nb","a\n b","a\n\nb","\ta\nb","a\nb\n\n\n","line one\nline two\n","x\u2028y\nz","😀\nx","\"q\"\nx","a\n\u0085b"]}`,
	`{"long":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.","double":"true Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore\tet dolore magna aliqua.  Ut enim  ad minim veniam","single":"- Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, 'quis' nostrud","spaces":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor  incididunt  ut   labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation","nested":[{"description":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur.","x":[["Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."]]}],"unicode":"Lorem ipsum dolor sit amet, éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé consectetur adipiscing elit, sed do"}`,
	`{"data":"` + strings.Repeat("QUJD", 300) + `","k":"` + strings.Repeat("word ", 60) + `x"}`,
	`{"keys":{"true":1,"null":2,"1":3,"-":4,"- a":5,"a: b":6,"#":7,"'":8,"a b":9,"é":10,"\t":11,"😀":12,"\u00a0a":13}}`,
}

// yamlGenericDocs hold what appendYAMLDocument leaves to the generic path: a key written as a
// complex key (a line break in it, longer than 128 bytes), duplicate keys, "<<", an escaped
// surrogate.
var yamlGenericDocs = []string{
	`{"a\nb":1}`,
	`{"a\u0085b":1}`,
	`{"a\u2028":1}`,
	`{"` + strings.Repeat("k", 129) + `":1}`,
	`{"a":1,"a":2}`,
	`{"<<":{"a":1}}`,
	`{"a":"\ud83d\ude00"}`,
}

func TestYAMLFromJSONMatchesGeneric(t *testing.T) {
	for _, doc := range yamlTestDocs {
		checkYAMLFromJSON(t, []byte(doc), true)
	}
	for _, doc := range yamlGenericDocs {
		if _, ok := appendYAMLDocument(nil, []byte(doc)); ok {
			t.Errorf("%s: written directly, expected to be left to the generic path", doc)
		}
		want, wantErr := genericJSONToYAML([]byte(doc))
		got, err := blobYAML(nil, []byte(doc))
		if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got, append([]byte("---\n"), want...)) {
			t.Errorf("%s: blobYAML = %q, %v; generic path: %q, %v", doc, got, err, want, wantErr)
		}
	}
}

// checkYAMLFromJSON holds appendYAMLDocument to the generic path on the JSON object j, written as
// the blob encoder writes blobs (compact, HTML unescaped). mustTake says appendYAMLDocument must
// write j itself, not leave it to the generic path.
func checkYAMLFromJSON(t *testing.T, j []byte, mustTake bool) {
	t.Helper()
	want, wantErr := genericJSONToYAML(j)
	got, ok := appendYAMLDocument(nil, j)
	switch {
	case !ok && mustTake:
		t.Errorf("%s: left to the generic path", j)
	case !ok:
		return
	case wantErr != nil:
		t.Errorf("%s: the generic path fails (%v), the direct one writes:\n%s", j, wantErr, got)
	case !bytes.Equal(got, want):
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s\n%s", j, got, want, firstDifference(got, want))
	}
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("first difference at byte %d: got %q, want %q", i, a[i:min(len(a), i+40)], b[i:min(len(b), i+40)])
}

// The whole writer, JSON blob to YAML stream, against the generic path on a catalog with every
// kind of blob.
func TestWriteYAMLMatchesGeneric(t *testing.T) {
	c, err := Load("../fixtures/catalog")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := Write(&got, c, YAML); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := writeYAMLGeneric(&want, c); err != nil {
		t.Fatal(err)
	}
	if got.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("YAML differs from the generic path's (%d vs %d bytes): %s", got.Len(), want.Len(), firstDifference(got.Bytes(), want.Bytes()))
	}
}

// writeYAMLGeneric writes c as Write does, every blob through the generic path.
func writeYAMLGeneric(w *bytes.Buffer, c *Catalog) error {
	for _, part := range SplitByPackage(c) {
		var js bytes.Buffer
		if err := Write(&js, part.Catalog, JSON); err != nil {
			return err
		}
		dec := json.NewDecoder(&js)
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				return err
			}
			y, err := genericJSONToYAML(compact.Bytes())
			if err != nil {
				return err
			}
			w.WriteString("---\n")
			w.Write(y)
		}
	}
	return nil
}

// FuzzYAMLFromJSON: for any JSON object, the direct writer writes what the generic path writes,
// or leaves the object to it.
func FuzzYAMLFromJSON(f *testing.F) {
	for _, doc := range append(yamlTestDocs, yamlGenericDocs...) {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil || compact.Len() == 0 || compact.Bytes()[0] != '{' {
			return
		}
		if yamlKeyOrderAmbiguous(data) {
			return
		}
		checkYAMLFromJSON(t, compact.Bytes(), false)
		// Also as a string, a key and a sequence item deeper in a document, where indentation
		// and folding columns differ.
		if s := compact.Bytes(); s[0] == '{' {
			nested := fmt.Sprintf(`{"a":[{"b":%s,"c":[%s]}],%q:1}`, s, s, string(data))
			if json.Valid([]byte(nested)) {
				var c2 bytes.Buffer
				json.Compact(&c2, []byte(nested))
				checkYAMLFromJSON(t, c2.Bytes(), false)
			}
		}
	})
}

// yamlKeyOrderAmbiguous: some object in the JSON value data has keys that go-yaml v2's key order
// does not order consistently (it is not transitive on, for example, "a1a", "a01", "a0O"). The
// generic path then writes them in an order that depends on Go's map iteration and varies from
// run to run; appendYAMLDocument writes one order.
func yamlKeyOrderAmbiguous(data []byte) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return true
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			var keys [][]byte
			for k, e := range v {
				keys = append(keys, []byte(k))
				if walk(e) {
					return true
				}
			}
			for _, a := range keys {
				for _, b := range keys {
					for _, c := range keys {
						if yamlKeyLess(a, b) && yamlKeyLess(b, c) && !yamlKeyLess(a, c) {
							return true
						}
					}
				}
			}
		case []any:
			for _, e := range v {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
