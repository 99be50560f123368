package bundledir

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// Render makes the olm.bundle blob opm v1.72 renders for this bundle with the given bundle image
// ("" for a bare directory, as `opm render DIR` does):
//   - olm.package from the annotations' package and the CSV's version (and release), unless the
//     properties file or the CSV's olm.properties annotation gives one;
//   - olm.gvk for every provided API, olm.gvk.required for every required API and olm.gvk
//     dependency, olm.package.required for every olm.package dependency;
//   - other properties of the properties file, the olm.properties annotation and the
//     dependencies file as they are;
//   - all sorted by (type, value), then one olm.bundle.object per manifest, in the order of their
//     values (not of the files), at the end;
//   - relatedImages: the CSV's spec.relatedImages, the bundle image and the operator's container
//     images, without repeating an image, sorted by image.
func (b *Bundle) Render(image string) (fbc.Bundle, error) {
	props, err := b.properties()
	if err != nil {
		return fbc.Bundle{}, fmt.Errorf("bundle %s: %w", b.Dir, err)
	}
	return fbc.Bundle{
		Schema:        fbc.SchemaBundle,
		Name:          b.CSV.Name,
		Package:       b.Package(),
		Image:         image,
		Properties:    props,
		RelatedImages: b.relatedImages(image),
	}, nil
}

// keyedProperty is a property ordered by its value's raw bytes as they were read, which is what
// opm compares (a value from the CSV's olm.properties annotation may hold spaces), and compacted
// after sorting unless it is compact already.
type keyedProperty struct {
	prop    fbc.Property
	compact bool
}

func (b *Bundle) properties() ([]fbc.Property, error) {
	// The bundle's own properties, deduplicated by (type, raw value) as opm's parser does: the
	// properties file first, then the derived olm.package, the CSV annotation, the provided GVKs.
	var own []fbc.Property
	own = append(own, b.Properties...)
	if b.Package() != "" {
		own = append(own, property.Build(property.TypePackage,
			property.Package{PackageName: b.Package(), Version: b.CSV.Version, Release: b.CSV.Release}))
	}
	if raw, ok := b.CSV.Annotations["olm.properties"]; ok {
		var fromCSV []fbc.Property
		if err := json.Unmarshal([]byte(raw), &fromCSV); err == nil {
			own = append(own, fromCSV...) // otherwise ignored, as opm does (a warning of Parse)
		}
	}
	for _, a := range b.Provided {
		own = append(own, property.Build(property.TypeGVK, property.GVK{Group: a.Group, Kind: a.Kind, Version: a.Version}))
	}
	own = dedupe(own)

	var out []keyedProperty
	var pkgProp *fbc.Property
	provided := map[property.GVK]bool{}
	required := map[property.GVK]bool{}
	for i, p := range own {
		switch p.Type {
		case property.TypeGVK:
			var v property.GVK
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("property %d (%s): %v", i, p.Type, err)
			}
			provided[v] = true
		case property.TypePackage:
			var v property.Package
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("property %d (%s): %v", i, p.Type, err)
			}
			built := property.Build(property.TypePackage, v)
			pkgProp = &built // the last one wins, as in opm
		default:
			out = append(out, keyed(p))
		}
	}
	for i, d := range b.Dependencies {
		switch d.Type {
		case property.TypeGVK:
			var v property.GVK
			if err := json.Unmarshal(d.Value, &v); err != nil {
				return nil, fmt.Errorf("dependency %d (%s): %v", i, d.Type, err)
			}
			required[v] = true
		case property.TypePackage:
			var v property.Package
			if err := json.Unmarshal(d.Value, &v); err != nil {
				return nil, fmt.Errorf("dependency %d (%s): %v", i, d.Type, err)
			}
			out = append(out, keyed(property.Build(property.TypePackageRequired,
				property.PackageRequired{PackageName: v.PackageName, VersionRange: v.Version})))
		default:
			out = append(out, keyed(d))
		}
	}
	for _, a := range b.Required {
		required[property.GVK{Group: a.Group, Kind: a.Kind, Version: a.Version}] = true
	}
	if pkgProp != nil {
		out = append(out, keyed(*pkgProp))
	}
	for g := range provided {
		out = append(out, keyed(property.Build(property.TypeGVK, g)))
	}
	for g := range required {
		out = append(out, keyed(property.Build(property.TypeGVKRequired, g)))
	}
	for _, o := range b.Objects {
		// Most of a bundle's bytes: compact as property.Build writes them, not compacted again.
		out = append(out, keyedProperty{prop: property.BuildBundleObject(o.JSON), compact: true})
	}
	slices.SortStableFunc(out, func(x, y keyedProperty) int {
		if c := cmp.Compare(x.prop.Type, y.prop.Type); c != 0 {
			return c
		}
		return bytes.Compare(x.prop.Value, y.prop.Value)
	})
	props := make([]fbc.Property, 0, len(out))
	var objects []fbc.Property
	for _, kp := range out {
		p := kp.prop
		if !kp.compact {
			p.Value = compact(p.Value)
		}
		if p.Type == property.TypeBundleObject || p.Type == property.TypeCSVMetadata {
			objects = append(objects, p)
		} else {
			props = append(props, p)
		}
	}
	return append(props, objects...), nil
}

func keyed(p fbc.Property) keyedProperty { return keyedProperty{prop: p} }

func dedupe(props []fbc.Property) []fbc.Property {
	seen := map[string]bool{}
	var out []fbc.Property
	for _, p := range props {
		k := p.Type + "\x00" + string(p.Value)
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// relatedImages is opm's getRelatedImages followed by render's sort by image.
func (b *Bundle) relatedImages(image string) []fbc.RelatedImage {
	out := slices.Clone(b.CSV.RelatedImages)
	have := map[string]bool{}
	for _, ri := range out {
		have[ri.Image] = true
	}
	for _, img := range b.CSV.OperatorImages {
		if !have[img] {
			out = append(out, fbc.RelatedImage{Image: img})
			have[img] = true
		}
	}
	slices.SortStableFunc(out, func(x, y fbc.RelatedImage) int { return cmp.Compare(x.Image, y.Image) })
	return withRelatedImage(out, image)
}

// withRelatedImage adds the bundle image to related images sorted by image, unless it is there:
// opm adds it before the operator's images and then sorts, which comes to the same.
func withRelatedImage(related []fbc.RelatedImage, image string) []fbc.RelatedImage {
	if image == "" {
		return related
	}
	i, found := slices.BinarySearchFunc(related, image, func(ri fbc.RelatedImage, img string) int { return cmp.Compare(ri.Image, img) })
	if found {
		return related
	}
	return slices.Insert(slices.Clone(related), i, fbc.RelatedImage{Image: image})
}

// WithImage is the bundle Render(image) makes, given the one Render("") made: rendering a bundle
// once serves every image reference it is pulled by.
func WithImage(rendered fbc.Bundle, image string) fbc.Bundle {
	rendered.Image = image
	rendered.RelatedImages = withRelatedImage(rendered.RelatedImages, image)
	return rendered
}
