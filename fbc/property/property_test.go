package property

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

func TestBuildWritesOpmEncoding(t *testing.T) {
	p := Build(TypeGVK, GVK{Group: "a<b>&c", Kind: "K", Version: "v1"})
	if got, want := string(p.Value), `{"group":"a<b>&c","kind":"K","version":"v1"}`; got != want {
		t.Errorf("Build = %s, want %s (compact, field order group/kind/version, no HTML escaping)", got, want)
	}
	p = Build(TypePackage, Package{PackageName: "etcd", Version: "0.9.2"})
	if got, want := string(p.Value), `{"packageName":"etcd","version":"0.9.2"}`; got != want {
		t.Errorf("Build = %s, want %s", got, want)
	}
}

func TestParseSortsKnownTypes(t *testing.T) {
	props := []fbc.Property{
		{Type: TypePackage, Value: json.RawMessage(`{"packageName":"etcd","version":"0.9.2"}`)},
		{Type: TypeGVK, Value: json.RawMessage(`{"group":"g","kind":"K","version":"v1"}`)},
		{Type: TypeGVKRequired, Value: json.RawMessage(`{"group":"h","kind":"L","version":"v2"}`)},
		{Type: TypePackageRequired, Value: json.RawMessage(`{"packageName":"dep","versionRange":">=1.0.0"}`)},
		{Type: TypeBundleObject, Value: json.RawMessage(`{"data":"eyJraW5kIjoiQ1NWIn0="}`)},
		{Type: "example.com/custom", Value: json.RawMessage(`[1,2]`)},
	}
	p, err := Parse(props)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Packages) != 1 || p.Packages[0].Version != "0.9.2" || len(p.GVKs) != 1 || len(p.GVKsRequired) != 1 ||
		len(p.PackagesRequired) != 1 || len(p.BundleObjects) != 1 || len(p.Others) != 1 {
		t.Fatalf("Parse = %+v", p)
	}
	if string(p.BundleObjects[0].Data) != `{"kind":"CSV"}` {
		t.Errorf("bundle object data decoded to %q", p.BundleObjects[0].Data)
	}
	if p.GVKs[0].String() != "g/v1/K" {
		t.Errorf("GVK.String = %s", p.GVKs[0])
	}
}

func TestParseNamesTheBadProperty(t *testing.T) {
	_, err := Parse([]fbc.Property{
		{Type: TypePackage, Value: json.RawMessage(`{"packageName":"etcd","version":"0.9.2"}`)},
		{Type: TypeGVK, Value: json.RawMessage(`"not an object"`)},
	})
	if err == nil || !strings.Contains(err.Error(), "property 1 (olm.gvk)") {
		t.Errorf("error %v does not name property 1 (olm.gvk)", err)
	}
	if _, err := Parse([]fbc.Property{{Type: TypePackage}}); err == nil {
		t.Error("a property without value was accepted")
	}
}

// FuzzDecodeBundleObject: the fast path gives what json.Unmarshal gives, and fails where it fails.
func FuzzDecodeBundleObject(f *testing.F) {
	for _, s := range []string{
		`{"data":"eyJraW5kIjoiQ1NWIn0="}`, `{"data":"eyJraW5kIjoiQ1NWIn0"}`, `{"data":"ey\nJr"}`, `{"data":"ey\r\nJraW5kIjoiQ1NWIn0="}`,
		`{"data":"eyJ\u0072"}`, `{"data":"é"}`, `{"data":""}`, `{"data":"=="}`, `{"data":"eyJraW5kIjoiQ1NWIn0=","ref":"x"}`,
		`{"ref":"r"}`, `null`, ``, `{"data":"eyJ\x01"}`, `{"data":"YQ==YQ=="}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, gotErr := DecodeBundleObject(raw)
		var want BundleObject
		wantErr := decodeStrict(raw, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gotErr, wantErr)
		}
		if gotErr == nil && (!bytes.Equal(got.Data, want.Data) || got.Ref != want.Ref) {
			t.Fatalf("%q: %+v, json.Unmarshal gives %+v", raw, got, want)
		}
	})
}

// FuzzBuildBundleObject: BuildBundleObject writes what Build writes, byte for byte.
func FuzzBuildBundleObject(f *testing.F) {
	for _, s := range []string{"", "a", "ab", "abc", `{"kind":"ClusterServiceVersion","x":"<&>"}`, "\x00\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := Build(TypeBundleObject, BundleObject{Data: data})
		got := BuildBundleObject(data)
		if got.Type != want.Type || string(got.Value) != string(want.Value) {
			t.Fatalf("BuildBundleObject(%q) = %s %s, want %s %s", data, got.Type, got.Value, want.Type, want.Value)
		}
	})
}
