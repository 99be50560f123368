package bundledir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/fbc"
)

const conformance = "../../../shared/conformance"

func bundleCases(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(conformance, "bundles", "*", "bundle"))
	if err != nil || len(dirs) == 0 {
		t.Skipf("conformance bundles not found under %s/bundles: skipping", conformance)
	}
	return dirs
}

func renderJSON(t *testing.T, b fbc.Bundle) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := fbc.Write(&out, &fbc.Catalog{Bundles: []fbc.Bundle{b}}, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestRenderMatchesOpm renders every real bundle directory of the corpus and compares the bytes
// with what `opm render DIR -o json` printed.
func TestRenderMatchesOpm(t *testing.T) {
	for _, dir := range bundleCases(t) {
		name := filepath.Base(filepath.Dir(dir))
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "render.json"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := Parse(dir)
			if err != nil {
				t.Fatal(err)
			}
			blob, err := b.Render("")
			if err != nil {
				t.Fatal(err)
			}
			got := renderJSON(t, blob)
			if !bytes.Equal(got, want) {
				t.Errorf("render differs from opm's:\n%s", diffBlobs(t, got, want))
			}
		})
	}
}

// diffBlobs shows the difference in decoded form, with bundle objects decoded, so a failure names
// the property that differs.
func diffBlobs(t *testing.T, got, want []byte) string {
	decode := func(b []byte) any {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return "invalid JSON: " + err.Error()
		}
		return v
	}
	d := cmp.Diff(decode(want), decode(got))
	if d == "" {
		return "(same JSON, different bytes)"
	}
	if len(d) > 4000 {
		d = d[:4000] + "..."
	}
	return d
}

// TestRenderWithImageMatchesSqliteAdd: kube-green 0.7.1 was added to the kube-green-replaces
// index with image quay.io/conformance/kube-green-bundle:v0.7.1; the migrated catalog's blob for
// it must have the same properties and related images as our render with that image.
func TestRenderWithImageMatchesSqliteAdd(t *testing.T) {
	dir := filepath.Join(conformance, "bundles", "kube-green-0.7.1", "bundle")
	migrated := filepath.Join(conformance, "sqlite", "kube-green-replaces", "migrate", "kube-green", "catalog.json")
	data, err := os.ReadFile(migrated)
	if err != nil {
		t.Skipf("conformance case kube-green-replaces not found: %v", err)
	}
	var want *fbc.Bundle
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var head struct{ Schema, Name string }
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(raw, &head)
		if head.Schema == fbc.SchemaBundle && head.Name == "kube-green.v0.7.1" {
			want = new(fbc.Bundle)
			if err := json.Unmarshal(raw, want); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want == nil {
		t.Fatal("kube-green.v0.7.1 not in the migrated catalog")
	}
	b, err := Parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Render("quay.io/conformance/kube-green-bundle:v0.7.1")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := renderJSON(t, got), renderJSON(t, *want); !bytes.Equal(g, w) {
		t.Errorf("render with image differs from opm's sqlite add + migrate:\n%s", diffBlobs(t, g, w))
	}
}

func TestRenderKeepsDependencies(t *testing.T) {
	dir := filepath.Join(conformance, "bundles", "rabbitmq-messaging-topology-operator-1.19.3", "bundle")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("rabbitmq bundle not in the corpus")
	}
	b, err := Parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	blob, err := b.Render("")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, p := range blob.Properties {
		types = append(types, p.Type)
	}
	joined := strings.Join(types, ",")
	for _, want := range []string{"olm.gvk.required", "olm.package.required"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s property rendered from dependencies.yaml / required CRDs: %s", want, joined)
		}
	}
}
