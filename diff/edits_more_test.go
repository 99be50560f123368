package diff_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// Writing a YAML catalog back as JSON (other key order, other whitespace, other file names) changes
// nothing a user could see: no finding.
func TestReformattedCatalogHasNoFindings(t *testing.T) {
	cat := loadCatalog(t, subset412)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "all.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fbc.Write(f, cat, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := diff.Compare(side("yaml", cat), openSide(t, dir))
	if len(r.Findings) != 0 {
		t.Errorf("reformatting gave findings: %v", briefs(r))
	}
}

// Editing the CSV inside an olm.bundle.object: the description is reported as CSV metadata, the
// install strategy as a change of the CSV object at spec.install; removing a CRD object is one finding.
func TestBundleObjectEdits(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	const bn = "trident-operator.v25.2.1"
	b := bundleOf(t, cat, trident, bn)
	var props []fbc.Property
	removedCRD := ""
	for _, p := range b.Properties {
		if p.Type != "olm.bundle.object" {
			props = append(props, p)
			continue
		}
		obj := decodeObject(t, p.Value)
		switch obj["kind"] {
		case "ClusterServiceVersion":
			spec := obj["spec"].(map[string]any)
			spec["description"] = "rewritten description"
			spec["install"].(map[string]any)["strategy"] = "edited"
			p.Value = encodeObject(t, obj)
		case "CustomResourceDefinition":
			if removedCRD == "" {
				removedCRD = "CustomResourceDefinition/" + obj["metadata"].(map[string]any)["name"].(string)
				continue
			}
		}
		props = append(props, p)
	}
	b.Properties = props
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r,
		"info bundle-object-changed b="+bn+" f=ClusterServiceVersion/"+bn,
		"info bundle-object-removed b="+bn+" f="+removedCRD,
		"info csv-metadata-changed b="+bn+" f=description",
	)
	if f := findingOf(t, r, diff.BundleObjectChanged, "", bn); !strings.HasSuffix(f.Message, "changed at spec.install") {
		t.Errorf("CSV change located as %q", f.Message)
	}
	if f := findingOf(t, r, diff.CSVMetadataChanged, "", bn); f.New != "rewritten description" {
		t.Errorf("description new value %q", f.New)
	}
}

func decodeObject(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var v struct{ Data []byte }
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(v.Data, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func encodeObject(t *testing.T, obj map[string]any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return json.RawMessage(`{"data":"` + base64.StdEncoding.EncodeToString(data) + `"}`)
}

// Dropping the olm.deprecations blob withdraws all five notices, each located at what it deprecated.
func TestDeprecationsRemoved(t *testing.T) {
	const rel = "conformance/fbc/deprecations-konflux/catalog"
	old := loadCatalog(t, rel)
	cat := loadCatalog(t, rel)
	cat.Deprecations = nil
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r,
		"info deprecation-removed f=olm.package",
		"info deprecation-removed b=konflux-operator.v0.0.15-rc.7",
		"info deprecation-removed b=konflux-operator.v0.1.3",
		"info deprecation-removed ch=candidate-v0.0",
		"info deprecation-removed ch=stable-v0.0",
	)
	if f := findingOf(t, r, diff.DeprecationRemoved, "stable-v0.0", ""); f.Old != "channel stable-v0.0 is no longer maintained, use stable-v0.2" {
		t.Errorf("withdrawn message %q", f.Old)
	}
}

// Custom-schema blobs compare as parsed JSON: reordering keys is nothing, a changed value is a change.
func TestOtherBlobs(t *testing.T) {
	const rel = "conformance/fbc/custom-schema-blobs/catalog"
	old := loadCatalog(t, rel)
	cat := loadCatalog(t, rel)
	for i := range cat.Others {
		o := &cat.Others[i]
		switch o.Schema {
		case "com.example.support-policy":
			o.Blob = json.RawMessage(strings.Replace(string(o.Blob), `"community"`, `"certified"`, 1))
		case "com.example.catalog-info":
			var v map[string]any
			if err := json.Unmarshal(o.Blob, &v); err != nil {
				t.Fatal(err)
			}
			o.Blob, _ = json.Marshal(v) // keys sorted, whitespace gone
		}
	}
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r, "info other-blob-changed f=com.example.support-policy")
	if f := r.Findings[0]; !strings.Contains(f.New, `"tier":"certified"`) || f.Package != "ecr-secret-operator" {
		t.Errorf("other blob change: %+v", f)
	}
}

// Package-level edits: default channel (warning), icon and description (info), a package removed
// (breaking) and one added.
func TestPackageLevelChanges(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	for i := range cat.Packages {
		p := &cat.Packages[i]
		switch p.Name {
		case "ecr-secret-operator":
			p.DefaultChannel = "v0.3"
			p.Description = "new text"
			if p.Icon != nil {
				p.Icon = &fbc.Icon{Data: append([]byte{0}, p.Icon.Data...), MediaType: p.Icon.MediaType}
			}
		case "kairos-operator":
			p.Name = "kairos"
		}
	}
	for i := range cat.Channels {
		if cat.Channels[i].Package == "kairos-operator" {
			cat.Channels[i].Package = "kairos"
		}
	}
	for i := range cat.Bundles {
		b := &cat.Bundles[i]
		if b.Package != "kairos-operator" {
			continue
		}
		b.Package = "kairos"
		for j, p := range b.Properties {
			if p.Type == "olm.package" {
				b.Properties[j].Value = json.RawMessage(strings.Replace(string(p.Value), `"kairos-operator"`, `"kairos"`, 1))
			}
		}
	}
	r := diff.Compare(side("old", old), side("new", cat))
	got := map[string]diff.Severity{}
	for _, f := range r.Findings {
		got[f.Package+" "+string(f.Kind)] = f.Severity
	}
	want := map[string]diff.Severity{
		"ecr-secret-operator default-channel-changed": diff.Warning,
		"ecr-secret-operator description-changed":     diff.Info,
		"ecr-secret-operator icon-changed":            diff.Info,
		"kairos-operator package-removed":             diff.Breaking,
		"kairos package-added":                        diff.Info,
	}
	for k, sev := range want {
		if got[k] != sev {
			t.Errorf("%s: severity %q, want %q (all: %v)", k, got[k], sev, briefs(r))
		}
	}
	if len(r.Findings) != len(want) {
		t.Errorf("findings: %v", briefs(r))
	}
}

// Rewriting a published bundle's version is a warning. Users already running it keep the version
// they installed, which is what skipRanges match, so their upgrades do not change.
func TestBundleVersionRewritten(t *testing.T) {
	old := loadCatalog(t, jaeger)
	cat := loadCatalog(t, jaeger)
	const bn = "jaeger-operator.v1.30.2"
	b := bundleOf(t, cat, "jaeger-product", bn)
	for i, p := range b.Properties {
		if p.Type == "olm.package" {
			b.Properties[i].Value = json.RawMessage(strings.Replace(string(p.Value), "1.30.2", "1.12.0", 1))
		}
	}
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r, "warning bundle-version-changed b="+bn+" f=olm.package")
	if f := r.Findings[0]; f.Old != "1.30.2" || f.New != "1.12.0" {
		t.Errorf("version %q -> %q", f.Old, f.New)
	}
}
