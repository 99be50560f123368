package diff

import (
	"encoding/json"
	"fmt"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

func compareBundles(pkg string, op, np *pkgIndex) []Finding {
	var out []Finding
	for _, name := range unionKeys(op.bundles, np.bundles) {
		ob, nb := op.bundles[name], np.bundles[name]
		mk := func(k Kind) Finding { return newFinding(k, pkg, "", name) }
		switch {
		case ob == nil:
			f := mk(BundleAdded)
			f.New = bundleVersion(nb)
			f.Message = fmt.Sprintf("bundle %q added (version %s, image %s)", name, orNone(f.New), orNone(nb.Image))
			out = append(out, f)
		case nb == nil:
			f := mk(BundleRemoved)
			f.Old = bundleVersion(ob)
			f.Message = fmt.Sprintf("bundle %q removed (version %s, image %s)", name, orNone(f.Old), orNone(ob.Image))
			out = append(out, f)
		default:
			out = append(out, compareBundle(mk, ob, nb)...)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// bundleVersion is the version of a bundle's first olm.package property, as written.
func bundleVersion(b *fbc.Bundle) string {
	for _, p := range b.Properties {
		if p.Type == property.TypePackage {
			var v property.Package
			if json.Unmarshal(p.Value, &v) == nil {
				return v.Version
			}
			return ""
		}
	}
	return ""
}

// bundleUnchanged is the fast path: byte-identical fields mean no finding, without decoding anything.
func bundleUnchanged(o, n *fbc.Bundle) bool {
	if o.Image != n.Image || !propertiesEqual(o.Properties, n.Properties) || !extraEqual(o.Extra, n.Extra) ||
		len(o.RelatedImages) != len(n.RelatedImages) {
		return false
	}
	for i := range o.RelatedImages {
		a, b := o.RelatedImages[i], n.RelatedImages[i]
		if a.Name != b.Name || a.Image != b.Image || !extraEqual(a.Extra, b.Extra) {
			return false
		}
	}
	return true
}

func compareBundle(mk func(Kind) Finding, o, n *fbc.Bundle) []Finding {
	if bundleUnchanged(o, n) {
		return nil
	}
	var out []Finding
	if o.Image != n.Image {
		f := mk(BundleImageChanged)
		f.Old, f.New = o.Image, n.Image
		f.Message = "bundle image changed"
		out = append(out, f)
	}
	out = append(out, compareRelatedImages(mk, o.RelatedImages, n.RelatedImages)...)
	out = append(out, compareBundleProperties(mk, o.Properties, n.Properties)...)
	out = append(out, extraDiff(mk, "olm.bundle", o.Extra, n.Extra)...)
	return out
}

// compareRelatedImages matches related images by name; unnamed ones (opm writes the bundle image and
// operator images with an empty name) only by image.
func compareRelatedImages(mk func(Kind) Finding, old, new []fbc.RelatedImage) []Finding {
	byName := func(list []fbc.RelatedImage) (named map[string][]string, unnamed []string) {
		named = map[string][]string{}
		for _, ri := range list {
			if ri.Name == "" {
				unnamed = append(unnamed, ri.Image)
				continue
			}
			named[ri.Name] = append(named[ri.Name], ri.Image)
		}
		return named, unnamed
	}
	on, ou := byName(old)
	nn, nu := byName(new)
	kinds := changeKinds{RelatedImageAdded, RelatedImageRemoved, RelatedImageChanged}
	var out []Finding
	for _, name := range unionKeys(on, nn) {
		out = append(out, compareValues(mk, name, kinds, fmt.Sprintf("related image %q", name), on[name], nn[name])...)
	}
	unnamed := changeKinds{RelatedImageAdded, RelatedImageRemoved, ""}
	out = append(out, compareValues(mk, "", unnamed, "unnamed related image", ou, nu)...)
	return out
}

// compareBundleProperties interprets the property types OLM gives meaning to and compares the rest
// type by type.
func compareBundleProperties(mk func(Kind) Finding, old, new []fbc.Property) []Finding {
	if propertiesEqual(old, new) {
		return nil
	}
	ot, nt := propertiesByType(old), propertiesByType(new)
	var out []Finding
	out = append(out, comparePackageProperty(mk, ot[property.TypePackage], nt[property.TypePackage])...)
	out = append(out, compareNamed(mk, property.TypeGVK, changeKinds{ProvidedAPIAdded, ProvidedAPIRemoved, ""},
		"provided API", gvkNames(ot[property.TypeGVK]), gvkNames(nt[property.TypeGVK]))...)
	out = append(out, compareNamed(mk, property.TypeGVKRequired, changeKinds{RequiredAPIAdded, RequiredAPIRemoved, ""},
		"required API", gvkNames(ot[property.TypeGVKRequired]), gvkNames(nt[property.TypeGVKRequired]))...)
	for _, typ := range []string{property.TypePackageRequired, property.TypeConstraint} {
		out = append(out, compareNamed(mk, typ, changeKinds{DependencyAdded, DependencyRemoved, ""},
			"dependency "+typ, ot[typ], nt[typ])...)
	}
	out = append(out, compareManifests(mk, old, new)...)
	interpreted := map[string]bool{property.TypePackage: true, property.TypeGVK: true, property.TypeGVKRequired: true,
		property.TypePackageRequired: true, property.TypeConstraint: true,
		property.TypeBundleObject: true, property.TypeCSVMetadata: true}
	for _, typ := range unionKeys(ot, nt) {
		if !interpreted[typ] {
			out = append(out, compareValues(mk, typ, propertyKinds, "bundle property "+typ, ot[typ], nt[typ])...)
		}
	}
	return out
}

// compareNamed reports values that appear or disappear, one finding each.
func compareNamed(mk func(Kind) Finding, field string, kinds changeKinds, label string, old, new []string) []Finding {
	var out []Finding
	onlyOld, onlyNew := multisetDiff(old, new)
	for _, v := range onlyOld {
		f := mk(kinds.removed)
		f.Field, f.Old = field, shortValue(v)
		f.Message = fmt.Sprintf("%s %s removed", label, shortValue(v))
		out = append(out, f)
	}
	for _, v := range onlyNew {
		f := mk(kinds.added)
		f.Field, f.New = field, shortValue(v)
		f.Message = fmt.Sprintf("%s %s added", label, shortValue(v))
		out = append(out, f)
	}
	return out
}

// gvkNames turns canonical olm.gvk values into "group/version/Kind"; values that do not decode are
// kept as their JSON.
func gvkNames(values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		var g property.GVK
		if err := json.Unmarshal([]byte(v), &g); err != nil {
			out = append(out, v)
			continue
		}
		out = append(out, g.String())
	}
	return out
}

func comparePackageProperty(mk func(Kind) Finding, old, new []string) []Finding {
	onlyOld, onlyNew := multisetDiff(old, new)
	if len(onlyOld) == 0 && len(onlyNew) == 0 {
		return nil
	}
	var o, n property.Package
	if len(old) == 1 && len(new) == 1 && json.Unmarshal([]byte(old[0]), &o) == nil && json.Unmarshal([]byte(new[0]), &n) == nil {
		var out []Finding
		if o.Version != n.Version {
			f := mk(BundleVersionChanged)
			f.Field, f.Old, f.New = property.TypePackage, o.Version, n.Version
			f.Message = fmt.Sprintf("bundle version changed from %s to %s", orNone(o.Version), orNone(n.Version))
			out = append(out, f)
		}
		o.Version, n.Version = "", ""
		if o != n {
			f := mk(PropertyChanged)
			f.Field, f.Old, f.New = property.TypePackage, old[0], new[0]
			f.Message = "bundle property olm.package changed"
			out = append(out, f)
		}
		return out
	}
	return compareValues(mk, property.TypePackage, propertyKinds, "bundle property olm.package", old, new)
}
