package fbc

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestEqualJSON(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"data":"abc"}`, "{\n    \"data\": \"abc\"\n}", true},
		{`{"a":"x y"}`, `{"a":"xy"}`, false},
		{`{"a":"x\" y"}`, `{"a":"x\"y"}`, false},
		{`{"a":"x\\"}`, "{ \"a\" : \"x\\\\\" }", true},
		{`[1, 2]`, `[1,2]`, true},
		{`[1, 2]`, `[12]`, false},
		{`{"a":1}`, `{"a":1}  `, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{``, ``, true},
	} {
		if got := EqualJSON([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("EqualJSON(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// FuzzEqualJSON: for valid JSON, EqualJSON agrees with comparing the compacted texts.
func FuzzEqualJSON(f *testing.F) {
	f.Add([]byte(`{"data": "a b"}`), []byte(`{"data":"a b"}`))
	f.Add([]byte(`[ "\"", 1 ]`), []byte(`["\"",1]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if !json.Valid(a) || !json.Valid(b) {
			return
		}
		var ca, cb bytes.Buffer
		if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
			return
		}
		if want := bytes.Equal(ca.Bytes(), cb.Bytes()); EqualJSON(a, b) != want {
			t.Errorf("EqualJSON(%q, %q) = %v, compacted equal: %v", a, b, !want, want)
		}
	})
}
