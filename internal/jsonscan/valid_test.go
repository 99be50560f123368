package jsonscan

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
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
		if got, want := Valid(data), json.Valid(data); got != want {
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
	// Strings long enough for the long-string search (past two words), with an escape, a control
	// byte, a quote or the end of the text at places far in.
	long := strings.Repeat("QUJDRA==", 9)
	for _, s := range []string{`"` + long + `"`, `["` + long + `\n` + long + `\"x"]`, "\"" + long + "\x01" + long + "\"",
		`{"data":"` + long + `","x":"` + long[:20] + `\u00e9"}`, `"` + long, `"` + long + `\`, "\"" + long[:40] + "\x1f\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("%q: valid %v, encoding/json says %v", b, got, want)
		}
		if n, ok := ValidValueEnd(b); ok {
			if n <= 0 || n > len(b) || !json.Valid(b[:n]) {
				t.Fatalf("%q: a value of %d bytes that encoding/json does not accept", b, n)
			}
		}
	})
}
