// Package property knows the property types OLM gives meaning to, and how to read and build them.
// Unknown types are left to the caller as raw JSON.
package property

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/olmcat/olmcat/fbc"
)

// The property types OLM interprets.
const (
	TypePackage         = "olm.package"
	TypePackageRequired = "olm.package.required"
	TypeGVK             = "olm.gvk"
	TypeGVKRequired     = "olm.gvk.required"
	TypeBundleObject    = "olm.bundle.object"
	TypeCSVMetadata     = "olm.csv.metadata"
	TypeChannel         = "olm.channel"
	TypeDeprecated      = "olm.deprecated"
	TypeLabel           = "olm.label"
	TypeConstraint      = "olm.constraint"
)

// Package is the value of olm.package.
type Package struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// PackageRequired is the value of olm.package.required.
type PackageRequired struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

// GVK is the value of olm.gvk and olm.gvk.required. Field order is the order opm writes.
type GVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

func (g GVK) String() string { return g.Group + "/" + g.Version + "/" + g.Kind }

// BundleObject is the value of olm.bundle.object: one Kubernetes manifest, base64 in JSON.
// A "ref" form (a path relative to the catalog) is used by unpacked catalogs.
type BundleObject struct {
	Data []byte `json:"data,omitempty"`
	Ref  string `json:"ref,omitempty"`
}

// Parsed holds the interpreted properties of one blob.
type Parsed struct {
	Packages         []Package
	PackagesRequired []PackageRequired
	GVKs             []GVK
	GVKsRequired     []GVK
	BundleObjects    []BundleObject
	CSVMetadatas     []json.RawMessage
	Others           []fbc.Property
}

// Parse interprets every property; a value that does not decode as its type is an error naming the
// property's index and type.
func Parse(props []fbc.Property) (*Parsed, error) {
	var p Parsed
	for i, prop := range props {
		var err error
		switch prop.Type {
		case TypePackage:
			var v Package
			if err = decodeStrict(prop.Value, &v); err == nil {
				p.Packages = append(p.Packages, v)
			}
		case TypePackageRequired:
			var v PackageRequired
			if err = decodeStrict(prop.Value, &v); err == nil {
				p.PackagesRequired = append(p.PackagesRequired, v)
			}
		case TypeGVK:
			var v GVK
			if err = decodeStrict(prop.Value, &v); err == nil {
				p.GVKs = append(p.GVKs, v)
			}
		case TypeGVKRequired:
			var v GVK
			if err = decodeStrict(prop.Value, &v); err == nil {
				p.GVKsRequired = append(p.GVKsRequired, v)
			}
		case TypeBundleObject:
			var v BundleObject
			if v, err = DecodeBundleObject(prop.Value); err == nil {
				p.BundleObjects = append(p.BundleObjects, v)
			}
		case TypeCSVMetadata:
			var v map[string]any
			if err = decodeStrict(prop.Value, &v); err == nil {
				p.CSVMetadatas = append(p.CSVMetadatas, prop.Value)
			}
		default:
			if !json.Valid(prop.Value) {
				err = fmt.Errorf("value is not valid JSON")
			} else {
				p.Others = append(p.Others, prop)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("property %d (%s): %w", i, prop.Type, err)
		}
	}
	return &p, nil
}

// DecodeBundleObject decodes an olm.bundle.object value as json.Unmarshal into a BundleObject
// does. The value renderers write, {"data":"BASE64"}, is decoded without encoding/json (a
// bundle's objects are most of its bytes, and a template reads every one); anything else, or
// data that does not decode, goes through json.Unmarshal, for its result or its error.
func DecodeBundleObject(raw json.RawMessage) (BundleObject, error) {
	const head, tail = `{"data":"`, `"}`
	if len(raw) > len(head)+len(tail) && bytes.HasPrefix(raw, []byte(head)) && bytes.HasSuffix(raw, []byte(tail)) {
		text := raw[len(head) : len(raw)-len(tail)]
		if !containsAnyByte(text, '\\', '"', '\r', '\n') { // base64 skips line breaks, JSON strings may not hold them
			data := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
			if n, err := base64.StdEncoding.Decode(data, text); err == nil {
				return BundleObject{Data: data[:n]}, nil
			}
		}
	}
	var v BundleObject
	err := decodeStrict(raw, &v)
	return v, err
}

// containsAnyByte is bytes.ContainsAny for a few ASCII bytes, one vectorised bytes.IndexByte
// each: ContainsAny looks at one byte at a time, which on megabytes of base64 cost more than
// decoding them.
func containsAnyByte(s []byte, cs ...byte) bool {
	for _, c := range cs {
		if bytes.IndexByte(s, c) >= 0 {
			return true
		}
	}
	return false
}

func decodeStrict(raw json.RawMessage, into any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return fmt.Errorf("value is missing")
	}
	return json.Unmarshal(raw, into)
}

// BuildBundleObject is Build(TypeBundleObject, BundleObject{Data: data}), byte for byte, written
// directly: a bundle's objects are most of its bytes, and encoding/json took them through
// reflection and a growing buffer.
func BuildBundleObject(data []byte) fbc.Property {
	if len(data) == 0 {
		return Build(TypeBundleObject, BundleObject{Data: data}) // {}: Data is omitempty
	}
	const head, tail = `{"data":"`, `"}`
	v := make([]byte, len(head)+base64.StdEncoding.EncodedLen(len(data))+len(tail))
	copy(v, head)
	base64.StdEncoding.Encode(v[len(head):], data)
	copy(v[len(v)-len(tail):], tail)
	return fbc.Property{Type: TypeBundleObject, Value: v}
}

// Build makes a property from a typed value, encoded compactly with HTML escaping off (as opm's
// property.Build does).
func Build(typ string, v any) fbc.Property {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("property.Build(%s): %v", typ, err)) // only called with the typed values of this package
	}
	return fbc.Property{Type: typ, Value: bytes.TrimSuffix(b.Bytes(), []byte{'\n'})}
}
