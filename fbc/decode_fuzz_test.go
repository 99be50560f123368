package fbc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// blobDecoding is one blob type's decoding, the one in use (fast, falling back to the reference)
// and the encoding/json based reference alone, both into a receiver prepared by fresh.
type blobDecoding struct {
	schema    string
	fresh     func(prefilled bool) any
	decode    func(v any, data []byte) error
	reference func(v any, data []byte) error
}

var loc3 = Location{File: "catalog.json", Line: 3}

var blobDecodings = []blobDecoding{
	{
		schema: SchemaPackage,
		fresh: func(pre bool) any {
			if pre {
				return &Package{Schema: "pre", Name: "pre", Description: "pre", Loc: loc3}
			}
			return &Package{}
		},
		decode:    func(v any, data []byte) error { return v.(*Package).UnmarshalJSON(data) },
		reference: func(v any, data []byte) error { return v.(*Package).decodeReference(data) },
	},
	{
		schema: SchemaChannel,
		fresh: func(pre bool) any {
			if pre {
				return &Channel{Schema: "pre", Package: "pre", Loc: loc3}
			}
			return &Channel{}
		},
		decode:    func(v any, data []byte) error { return v.(*Channel).UnmarshalJSON(data) },
		reference: func(v any, data []byte) error { return v.(*Channel).decodeReference(data) },
	},
	{
		schema: SchemaBundle,
		fresh: func(pre bool) any {
			if pre {
				return &Bundle{Schema: "pre", Image: "pre", Loc: loc3}
			}
			return &Bundle{}
		},
		decode:    func(v any, data []byte) error { return v.(*Bundle).UnmarshalJSON(data) },
		reference: func(v any, data []byte) error { return v.(*Bundle).decodeReference(data) },
	},
	{
		schema:    SchemaBundle + " (shared)",
		fresh:     func(bool) any { return &Bundle{} },
		decode:    func(v any, data []byte) error { return DecodeBundleShared(data, v.(*Bundle)) },
		reference: func(v any, data []byte) error { return v.(*Bundle).decodeReference(data) },
	},
	{
		schema: SchemaDeprecations,
		fresh: func(pre bool) any {
			if pre {
				return &Deprecation{Schema: "pre", Package: "pre", Loc: loc3}
			}
			return &Deprecation{}
		},
		decode:    func(v any, data []byte) error { return v.(*Deprecation).UnmarshalJSON(data) },
		reference: func(v any, data []byte) error { return v.(*Deprecation).decodeReference(data) },
	},
}

// FuzzDecodeBlob: on any input, decoding a blob of each core schema gives exactly what the
// encoding/json based decoding gives (field for field, nil and empty slices told apart, raw values
// byte for byte), or the same error. Decoded raw values must not share the input's memory (except
// with DecodeBundleShared). Seeds: testdata/fuzz/FuzzDecodeBlob.
func FuzzDecodeBlob(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeLikeReference(t, data, "")
	})
}

// checkDecodeLikeReference decodes data as each core schema (only the one whose name starts with
// schema, when not empty) and compares with the reference.
func checkDecodeLikeReference(t *testing.T, data []byte, schema string) {
	t.Helper()
	for _, d := range blobDecodings {
		if !strings.HasPrefix(d.schema, schema) {
			continue
		}
		for _, pre := range []bool{false, true} {
			want := d.fresh(pre)
			wantErr := d.reference(want, data)

			input := bytes.Clone(data)
			got := d.fresh(pre)
			gotErr := d.decode(got, input)
			if d.schema != SchemaBundle+" (shared)" {
				for i := range input {
					input[i] = 'X' // the decoded blob must not see this
				}
			}
			switch {
			case (gotErr == nil) != (wantErr == nil):
				t.Fatalf("%s (prefilled %v): error %v, encoding/json: %v\ninput: %q", d.schema, pre, gotErr, wantErr, data)
			case gotErr != nil && gotErr.Error() != wantErr.Error():
				t.Fatalf("%s: error %q, encoding/json: %q", d.schema, gotErr, wantErr)
			case gotErr == nil && !reflect.DeepEqual(got, want):
				t.Fatalf("%s (prefilled %v): decoded\n%#v\nencoding/json:\n%#v\ninput: %q", d.schema, pre, got, want, data)
			}
		}
	}
}

// FuzzValidJSON: the scanner accepts exactly the JSON texts encoding/json accepts (except for
// nesting deeper than it follows), and jsonscan.Valid answers as json.Valid.
func FuzzValidJSON(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c.blob))
	}
	for _, s := range []string{` 0 `, `-0.5e-7`, `1E+2`, `[1,[2,{"a":[]}],"\u00e9\ud83d"]`, `"\/\b\f\n\r\t"`,
		`true`, `nul`, `[1,]`, `{"a" 1}`, `{"a":1 "b":2}`, `"\u12g4"`, "\"\x7f\xff\"", `[-]`, `.5`, `1.`, `"`} {
		f.Add([]byte(s))
	}
	// Strings long enough for the scanner's long-string search (past two words), with an
	// escape, a control byte, a quote or the end of the text at places far in.
	long := strings.Repeat("QUJDRA==", 9)
	for _, s := range []string{`"` + long + `"`, `["` + long + `\n` + long + `\"x"]`, "\"" + long + "\x01" + long + "\"",
		`{"data":"` + long + `","x":"` + long[:20] + `\u00e9"}`, `"` + long, `"` + long + `\`, "\"" + long[:40] + "\x1f\"",
		"   \n    " + strings.Repeat(" ", 40) + `["` + long + `"` + "\n" + strings.Repeat(" ", 17) + `]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := jsonScanner{data: data}
		scanned := s.skipValue() && s.atEnd()
		valid := json.Valid(data)
		if scanned && !valid {
			t.Fatalf("the scanner accepts invalid JSON %q", data)
		}
		if !scanned && valid && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= maxSkipDepth {
			t.Fatalf("the scanner refuses valid JSON %q", data)
		}
		if jsonscan.Valid(data) != valid {
			t.Fatalf("jsonscan.Valid %v, json.Valid %v: %q", !valid, valid, data)
		}
	})
}
