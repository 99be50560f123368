package fbcbackend

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/internal/bytepool"
)

// converted is one olm.bundle blob turned into what the API serves, split in two: the small part
// kept in memory (and in the cache index) and the manifests, kept in the body store.
type converted struct {
	name, pkg string
	light     *api.Bundle // csvName, packageName, bundlePath, APIs, version, dependencies, properties
	provided  []gvk
	record    []byte // the encoded body
}

// gvk is a provided API, compared by the provider queries.
type gvk struct{ Group, Version, Kind string }

// body is what a bundle's csvJson and object are made from: either the manifests of its
// olm.bundle.object properties, or (when there are none) the olm.csv.metadata from which opm
// synthesizes a CSV at answer time.
type body struct {
	Objects  []string
	CSVIndex int                    // index of the CSV among Objects, -1 when there is none
	CSVMeta  json.RawMessage        // set when a CSV must be synthesized
	Version  string                 // the bundle version, for the synthesized CSV
	Related  []csvmeta.RelatedImage // for the synthesized CSV
}

// bundleProperty is one property of a bundle blob, its value as a raw span of the blob.
type bundleProperty struct {
	Type  string
	Value []byte
}

// readBundleBlob picks out of an olm.bundle blob what the conversion reads, without copying
// the property values. The properties are appended to props.
func readBundleBlob(data []byte, props []bundleProperty) (name, pkg, image string, _ []bundleProperty, related []csvmeta.RelatedImage, err error) {
	str := func(v []byte) (string, error) {
		b, err := stringBytes(v)
		return string(b), err
	}
	err = eachField(data, func(k, v []byte) error {
		var err error
		switch {
		case keyIs(k, "name"):
			name, err = str(v)
		case keyIs(k, "package"):
			pkg, err = str(v)
		case keyIs(k, "image"):
			image, err = str(v)
		case keyIs(k, "properties"):
			props = props[:0]
			err = eachElement(v, func(e []byte) error {
				var p bundleProperty
				if err := eachField(e, func(k, v []byte) error {
					var err error
					switch {
					case keyIs(k, "type"):
						var t []byte
						if t, err = stringBytes(v); err == nil {
							p.Type = propertyType(t)
						}
					case keyIs(k, "value"):
						p.Value = v
					}
					return err
				}); err != nil {
					return err
				}
				props = append(props, p)
				return nil
			})
		case keyIs(k, "relatedImages"):
			related = related[:0]
			err = eachElement(v, func(e []byte) error {
				var ri csvmeta.RelatedImage
				if err := eachField(e, func(k, v []byte) error {
					var err error
					switch {
					case keyIs(k, "name"):
						ri.Name, err = str(v)
					case keyIs(k, "image"):
						ri.Image, err = str(v)
					}
					return err
				}); err != nil {
					return err
				}
				related = append(related, ri)
				return nil
			})
		}
		return err
	})
	return name, pkg, image, props, related, err
}

// convertBundle applies opm's ConvertModelBundleToAPIBundle (plus the catalog load steps before
// it) to one olm.bundle blob. Channel-dependent fields (channel, skipRange, replaces, skips) and the
// deprecation are added when answering.
func convertBundle(data []byte) (*converted, error) {
	scratch := propertyScratch.Get().(*[]bundleProperty)
	defer func() {
		clear(*scratch) // the values share data's memory
		propertyScratch.Put(scratch)
	}()
	name, pkg, image, props, related, err := readBundleBlob(data, (*scratch)[:0])
	*scratch = props
	if err != nil {
		return nil, err
	}
	out := &converted{name: name, pkg: pkg, light: &api.Bundle{CsvName: name, PackageName: pkg, BundlePath: image}}
	sizeHint := 0
	for _, p := range props {
		if p.Type == property.TypeBundleObject {
			sizeHint += len(p.Value)*3/4 + binary.MaxVarintLen64
		}
	}
	objects := newObjectRecord(sizeHint)
	var csvMetas []json.RawMessage
	var pkgVersion string
	havePackage := false
	for i, p := range props {
		if p.Type == property.TypeBundleObject {
			if err := objects.add(p.Value); err != nil {
				return nil, fmt.Errorf("convert bundle object property at index %d to JSON: %v", i, err)
			}
			continue
		}
		value, err := normalizeJSON(p.Value)
		if err != nil {
			return nil, fmt.Errorf("property at index %d (%s): %v", i, p.Type, err)
		}
		switch p.Type {
		case property.TypeCSVMetadata:
			csvMetas = append(csvMetas, value)
			continue
		case property.TypePackage:
			var v property.Package
			if !stringFields(value, []string{"packageName", "version", "release"}, &v.PackageName, &v.Version, &v.Release) {
				v = property.Package{}
				if err := json.Unmarshal(value, &v); err != nil {
					return nil, fmt.Errorf("parse property %d (%s): %v", i, p.Type, err)
				}
			}
			if !havePackage {
				pkgVersion, havePackage = v.Version, true
			}
		case property.TypeGVK, property.TypeGVKRequired:
			var v property.GVK
			if !stringFields(value, []string{"group", "kind", "version"}, &v.Group, &v.Kind, &v.Version) {
				v = property.GVK{}
				if err := json.Unmarshal(value, &v); err != nil {
					return nil, fmt.Errorf("parse property %d (%s): %v", i, p.Type, err)
				}
			}
			g := &api.GroupVersionKind{Group: v.Group, Version: v.Version, Kind: v.Kind}
			if p.Type == property.TypeGVK {
				out.light.ProvidedApis = append(out.light.ProvidedApis, g)
				out.provided = append(out.provided, gvk{v.Group, v.Version, v.Kind})
			} else {
				out.light.RequiredApis = append(out.light.RequiredApis, g)
				out.light.Dependencies = append(out.light.Dependencies, &api.Dependency{Type: property.TypeGVK, Value: string(value)})
			}
		case property.TypePackageRequired:
			var v property.PackageRequired
			if err := json.Unmarshal(value, &v); err != nil {
				return nil, fmt.Errorf("parse property %d (%s): %v", i, p.Type, err)
			}
			dep := property.Build(property.TypePackage, property.Package{PackageName: v.PackageName, Version: v.VersionRange})
			out.light.Dependencies = append(out.light.Dependencies, &api.Dependency{Type: dep.Type, Value: string(dep.Value)})
		}
		out.light.Properties = append(out.light.Properties, &api.Property{Type: p.Type, Value: string(value)})
	}
	if !havePackage {
		return nil, fmt.Errorf("must have exactly 1 %q property, found 0", property.TypePackage)
	}
	ver, err := semver.Parse(pkgVersion)
	if err != nil {
		return nil, fmt.Errorf("error parsing bundle version %q: %v", pkgVersion, err)
	}
	out.light.Version = ver.String()
	if len(csvMetas) > 1 {
		return nil, fmt.Errorf("expected at most 1 property of type %q, found %d", property.TypeCSVMetadata, len(csvMetas))
	}
	csv := objects.csvIndex()
	if csv < 0 && len(csvMetas) == 1 {
		bytepool.Put(objects.buf)
		out.record = encodeBody(body{CSVIndex: -1, CSVMeta: csvMetas[0], Version: out.light.Version, Related: related})
	} else {
		out.record = objects.finish(csv)
	}
	return out, nil
}

var propertyScratch = sync.Pool{New: func() any { return new([]bundleProperty) }}

// commonPropertyTypes are the types propertyType returns without allocating.
var commonPropertyTypes = []string{property.TypePackage, property.TypeGVK, property.TypeBundleObject,
	property.TypeCSVMetadata, property.TypeGVKRequired, property.TypePackageRequired, property.TypeLabel,
	property.TypeConstraint, property.TypeChannel, property.TypeDeprecated}

// propertyType returns a property's type as a string.
func propertyType(t []byte) string {
	for _, known := range commonPropertyTypes {
		if string(t) == known {
			return known
		}
	}
	return string(t)
}

// stringFields reads a JSON object whose members are all strings normalString accepts, under keys
// among names (exact case), into the matching out fields, as encoding/json would. It reports false
// for anything else (other keys, other types, null, escapes, bad syntax), which the caller decodes
// with encoding/json; out may then hold part of the object.
func stringFields(raw []byte, names []string, out ...*string) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		next, ok := normalString(raw, i)
		if !ok {
			return false
		}
		key := raw[i+1 : next-1]
		if i = skipSpace(raw, next); i >= len(raw) || raw[i] != ':' {
			return false
		}
		start := skipSpace(raw, i+1)
		next, ok = normalString(raw, start)
		if !ok {
			return false
		}
		value := raw[start+1 : next-1]
		field := slices.Index(names, string(key))
		if field < 0 {
			return false
		}
		*out[field] = string(value)
		switch i = skipSpace(raw, next); {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}
