package crdsafety

import (
	"encoding/json"
	"strings"
	"testing"
)

// CRDs the checks cannot read are said so, with the reason, and never judged.
func TestUnreadableCRDs(t *testing.T) {
	for _, tc := range []struct {
		name, manifest, reason string
	}{
		{"v1beta1", `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"a.example.com"},"spec":{"version":"v1"}}`,
			"apiextensions.k8s.io/v1beta1, and OLM v1's preflight checks apiextensions.k8s.io/v1"},
		{"no schema", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.example.com"},"spec":{"versions":[{"name":"v1","served":true,"storage":true}]}}`,
			`version "v1" has no schema.openAPIV3Schema`},
		{"wrong type", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.example.com"},"spec":{"versions":"v1"}}`,
			"converting unstructured to CRD object"},
		{"yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\nspec:\n  scope: [x]\n",
			"converting unstructured to CRD object"},
	} {
		crd, err := DecodeCRD([]byte(tc.manifest))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if crd.Checkable() || crd.Err == nil || !strings.Contains(crd.Err.Error(), tc.reason) {
			t.Errorf("%s: checkable %v, error %v; want %q", tc.name, crd.Checkable(), crd.Err, tc.reason)
		}
		good, _ := DecodeCRD(mustJSON(t, baseCRD()))
		if _, err := Check(good, crd); err == nil {
			t.Errorf("%s: Check judged an unreadable CRD", tc.name)
		}
	}
	if _, err := DecodeCRD([]byte(`{"kind":"Service"}`)); err == nil {
		t.Error("a Service decoded as a CRD")
	}
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Any manifest, read and checked against itself and against a real CRD either way: no panic,
// and crdify finds nothing in a CRD compared with itself (what Check's shortcut for an unchanged
// CRD takes for granted).
func FuzzDecodeCRD(f *testing.F) {
	base := mustJSON(f, baseCRD())
	f.Add(base)
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a"},"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","items":{"type":"string"}}}}]}}`))
	f.Add([]byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        oneOf: [{required: [a]}]\n        additionalProperties: false\n"))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","status":{"storedVersions":["x"]}}`))
	f.Add([]byte("kind: CustomResourceDefinition\n"))
	f.Add([]byte("not a manifest"))
	good, err := DecodeCRD(base)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		crd, err := DecodeCRD(data)
		if err != nil {
			return
		}
		if crd.Checkable() != (crd.Err == nil) {
			t.Fatalf("checkable %v with error %v", crd.Checkable(), crd.Err)
		}
		if !crd.Checkable() {
			return
		}
		if fails, err := runPreflight(crd, crd); err != nil || len(fails) > 0 {
			t.Fatalf("a CRD against itself: %v %v", fails, err)
		}
		_, _ = Check(good, crd)
		_, _ = Check(crd, good)
		_ = RemovedStoredVersions(crd, good)
	})
}
