package v1install

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzFields holds the manifest reader to encoding/json: on any input, fields finds the same
// values for the keys asked as a decoding into map[string]json.RawMessage (exact keys, the last
// occurrence winning), succeeds exactly when that decoding does for an object, and never panics.
func FuzzFields(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"ClusterServiceVersion","spec":{"installModes":[]}}`,
		`{"kind":"a","kind":"b","Kind":"c"}`,
		`{"k\u0069nd":"x", "spec" : null }`,
		`{"spec":{"a":[1,2,{"b":"\""}]},}`,
		`null`, `[]`, `{`, `{"a":tru}`, ` {} `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		keys := []string{"kind", "spec", "Kind"}
		got, err := fields(raw, "x", keys...)
		var want map[string]json.RawMessage
		jerr := json.Unmarshal(raw, &want)
		trimmed := bytes.TrimSpace(raw)
		isObject := len(trimmed) > 0 && trimmed[0] == '{'
		if string(trimmed) == "null" {
			if err != nil {
				t.Fatalf("null: %v", err)
			}
			return
		}
		if !isObject {
			if err == nil {
				t.Fatalf("not an object, but read: %q", raw)
			}
			return
		}
		// fields reads one object and ignores what follows it; encoding/json wants nothing after
		if jerr == nil && err != nil {
			t.Fatalf("encoding/json reads %q, fields does not: %v", raw, err)
		}
		if err != nil {
			return
		}
		if jerr != nil {
			// only trailing bytes may differ: the object itself must be valid
			var probe map[string]json.RawMessage
			if derr := json.NewDecoder(bytes.NewReader(raw)).Decode(&probe); derr != nil {
				t.Fatalf("fields reads %q, encoding/json does not: %v", raw, jerr)
			}
			want = probe
		}
		for _, k := range keys {
			g, gok := got.get(k)
			w, wok := want[k]
			if gok != wok || (gok && !bytes.Equal(bytes.TrimSpace(g), bytes.TrimSpace(w))) {
				t.Fatalf("%q: key %q: fields %q (%v), encoding/json %q (%v)", raw, k, g, gok, w, wok)
			}
		}
	})
}
