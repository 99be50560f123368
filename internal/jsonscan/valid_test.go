package jsonscan

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// valid is json.Valid spelled with ValidValueEnd: white space around one value.
func valid(b []byte) bool {
	i := SkipSpace(b, 0)
	n, ok := ValidValueEnd(b[i:])
	return ok && SkipSpace(b, i+n) == len(b)
}

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.0E-3`, `true`, `false`, `null`,
	`{"a":1,"b":[true,false,null,{"c":"d\"\\\/\b\f\n\r\t\u00e9"}]}`, ` { "a" : [ 1 , 2 ] } `, "[\n1,\t2\r]",
	`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`, `01`, `1.`, `.5`, `1e`, `1e+`, `-`, `--1`, `+1`,
	`tru`, `truex`, `nul`, `[true false]`, `"a`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"a\x01\"", "\"\xff\xfe\"", `{"a":1}}`,
	`[1]]`, `{"a":[1}`, `[{]}`, ``, ` `, `{"a":1`, `{"a":1 "b":2}`, `"\`, `[1 2]`, `{"a" 1}`, `1 2`, "\"\t\"",
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), strings.Repeat("[", 9999) + "{}" + strings.Repeat("]", 9999),
	strings.Repeat("[", 10000) + "{}" + strings.Repeat("]", 10000),
}

func TestValidValueEndAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("%.60q: valid %v, encoding/json says %v", c, got, want)
		}
	}
	// Real catalogs: every JSON file of the conformance FBC cases, and where its first value ends.
	var files []string
	_ = filepath.WalkDir("../../../shared/conformance/fbc", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("conformance corpus not found at ../../../shared/conformance (it lives in /work/shared/conformance)")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := valid(data), json.Valid(data); got != want {
			t.Errorf("%s: valid %v, encoding/json says %v", f, got, want)
		}
		if i := SkipSpace(data, 0); i < len(data) {
			n, ok := ValidValueEnd(data[i:])
			end, _ := ValueEnd(data[i:])
			if ok && n != end {
				t.Errorf("%s: the first value ends at %d, ValueEnd says %d", f, n, end)
			}
		}
	}
}

func FuzzValidValueEnd(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("%q: valid %v, encoding/json says %v", b, got, want)
		}
		if n, ok := ValidValueEnd(b); ok {
			if n <= 0 || n > len(b) || !json.Valid(b[:n]) {
				t.Fatalf("%q: a value of %d bytes that encoding/json does not accept", b, n)
			}
		}
	})
}
