package unpack

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzObjectFileRoundTrip: whatever JSON object a bundle stores, the file Unpack writes for it
// reads back to exactly the same bytes.
func FuzzObjectFileRoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"1.0","b":"yes","c":"\u003ctag\u003e"}}`,
		`{"kind":"ConfigMap","apiVersion":"v1"}`,
		`{"apiVersion":"v1","kind":"X","spec":{"n":1e+21,"f":0.1,"big":12345678901234567890,"neg":-0,"list":[null,true,"",{}]}}`,
		`{"a":"line1\nline2","b":"  leading","c":"#not a comment","d":"---"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var v map[string]any
		if json.Unmarshal(in, &v) != nil {
			return
		}
		var data bytes.Buffer
		if json.Compact(&data, in) != nil {
			return
		}
		content, err := fileContent(data.Bytes())
		if err != nil {
			t.Fatalf("fileContent(%q): %v", data.Bytes(), err)
		}
		back, err := decodeObjectFile(content)
		if err != nil {
			t.Fatalf("decodeObjectFile(%q) for data %q: %v", content, data.Bytes(), err)
		}
		if !bytes.Equal(back, data.Bytes()) {
			t.Fatalf("round trip changed the data:\n in: %s\nout: %s\nfile: %q", data.Bytes(), back, content)
		}
	})
}

func TestNonCanonicalObjectKeptAsJSON(t *testing.T) {
	data := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}}`)
	content, err := fileContent(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(content, []byte("{")) {
		t.Fatalf("unsorted keys would not survive YAML, so the file should be JSON: %q", content)
	}
	if back, _ := decodeObjectFile(content); !bytes.Equal(back, data) {
		t.Errorf("got %s", back)
	}
}
