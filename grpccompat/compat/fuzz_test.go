package compat

import (
	"bytes"
	"strings"
	"testing"
)

// Any text given as a plan is either refused with an error naming the file or accepted, and an
// accepted plan survives Write and ReadPlan unchanged.
func FuzzReadPlan(f *testing.F) {
	f.Add([]byte(`[{"id": "0001", "method": "api.Registry/ListPackages", "request": {}}]`))
	f.Add([]byte(`[{"id": "1", "method": "api.Registry/GetBundle", "request": {"pkgName": "p", "channelName": "c", "csvName": "b"}, "metadata": {"x": "y"}}]`))
	f.Add([]byte(`[{"id": "1", "method": "api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas", "request": {"schema": "s"}}]`))
	f.Add([]byte(`[{"id": "1", "method": "api.Registry/GetPackage", "request": null}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadPlan(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the plan: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatalf("accepted plan does not write: %v", err)
		}
		back, err := ReadPlan(&b, "written.json")
		if err != nil || len(back) != len(p) {
			t.Fatalf("written plan does not read back: %v (%d vs %d calls)", err, len(back), len(p))
		}
		for i := range p {
			k1, err1 := callKey(&p[i])
			k2, err2 := callKey(&back[i])
			if err1 != nil || err2 != nil || k1 != k2 || p[i].ID != back[i].ID {
				t.Fatalf("call %d changed: %v %v", i, err1, err2)
			}
		}
	})
}

// Canonical JSON is idempotent and leaves text that is not one JSON value alone.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":"x\u003c"}`, `[1.0,2e3,-0]`, `12345678901234567890`, `"s"`, `{`, `null`, `{"a":{"b":[true,false]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, viaFloat := range []bool{false, true} {
			once := canonicalJSON(s, viaFloat)
			if twice := canonicalJSON(once, viaFloat); twice != once {
				t.Fatalf("not idempotent (viaFloat %v): %q -> %q -> %q", viaFloat, s, once, twice)
			}
		}
	})
}

// Recorded answers that do not decode are errors, never panics.
func FuzzDecodeRecorded(f *testing.F) {
	f.Add(ListBundles, []byte(`{"code":"OK","message":"","response":[{"csvName":"a"}]}`))
	f.Add(GetBundle, []byte(`{"code":"Unknown","message":"x","response":null}`))
	f.Add(ExperimentalListPackageCustomSchemas, []byte(`{"code":"OK","response":[{"schema":"s","n":1}]}`))
	f.Add(GetPackage, []byte(`{"code":"NotACode"}`))
	f.Fuzz(func(t *testing.T, method string, data []byte) {
		if _, ok := methods[method]; !ok {
			return
		}
		a, err := decodeRecorded(method, data)
		if err == nil {
			if _, err := a.MarshalJSON(); err != nil {
				t.Fatalf("decoded answer does not render: %v", err)
			}
		}
	})
}
