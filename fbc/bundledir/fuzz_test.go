package bundledir

import (
	"encoding/json"
	"testing"
)

func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`, `[{"Config":{"Labels":{"a":"b"}}}]`, "a: b\n",
		"FROM scratch\nLABEL a=\"b c\" d='e' \\\n f=g\n", "LABEL a b c\n", "LABEL \"a\\\"b\"=c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		labels, _, err := ParseLabels(data)
		if err == nil && labels == nil {
			t.Fatal("nil labels without an error")
		}
	})
}

// FuzzDecodeManifest: any input either fails cleanly or gives a Kubernetes object whose JSON is
// valid and stable (decoding it again gives the same bytes).
func FuzzDecodeManifest(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n",
		"# comment\n---\napiVersion: v1\nkind: Service\n---\nkind: Second\n",
		`{"apiVersion":"v1","kind":"X","spec":{"n":1.50,"m":1e3}}`,
		"kind: X\nspec:\n  n: 1.0\n  big: 123456789012345678901234\n  t: yes\n",
		"--- # c\nkind: X\n", "- a\n- b\n", "kind: [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := DecodeManifest(data)
		if err != nil {
			return
		}
		if !json.Valid(obj.JSON) || obj.Kind == "" {
			t.Fatalf("invalid result %q for %q", obj.JSON, data)
		}
		again, err := DecodeManifest(obj.JSON)
		if err != nil || string(again.JSON) != string(obj.JSON) {
			t.Fatalf("not stable: %q -> %q (%v)", obj.JSON, again, err)
		}
	})
}
