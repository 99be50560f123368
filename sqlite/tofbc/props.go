package tofbc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/sqlite"
)

// bundleProperties builds a bundle's properties the way opm's ListBundles -> model -> declcfg path
// does (ConvertAPIBundleToModelBundle, Normalize, ConvertFromModel, moveBundleObjectsToEnd):
//   - properties rows: olm.gvk collected into a set, everything else copied;
//   - dependencies rows: olm.gvk into the required set, olm.package as olm.package.required;
//   - an olm.package property made from package and version when there is none;
//   - one olm.bundle.object per manifest;
//   - values compacted, duplicates removed, sorted by (type, value), bundle objects last.
//
// Where opm dropped data (dependency types other than gvk/package, olm.deprecated bundles) or
// failed (unparsable values, several olm.package values), a departure is recorded.
func (pc *packageConverter) bundleProperties(b *bundleBuild) []fbc.Property {
	var props []fbc.Property
	provided := map[sqlite.GVK]bool{}
	required := map[sqlite.GVK]bool{}
	hasPackage := false
	for _, p := range b.row.Properties {
		switch p.Type {
		case property.TypeGVK:
			g, err := sqlite.DecodeGVK(p.Value)
			if err != nil {
				pc.invalidProperty(b.name, "property", p, err)
				continue
			}
			provided[g] = true
		case property.TypeDeprecated:
			if !b.deprecated {
				b.deprecated = true
				pc.depart(Departure{Code: DeprecatedBundleKept, Bundle: b.name,
					Opm:    "drops the bundle (it has an olm.deprecated property); bundles that replace it keep a dangling replaces",
					Olmcat: "keeps the bundle and deprecates it with an olm.deprecations entry"})
			}
		case property.TypePackage:
			hasPackage = true
			props = pc.appendRaw(props, b.name, "property", p)
		default:
			props = pc.appendRaw(props, b.name, "property", p)
		}
	}
	for _, d := range b.row.Dependencies {
		switch d.Type {
		case property.TypeGVK:
			g, err := sqlite.DecodeGVK(d.Value)
			if err != nil {
				pc.invalidProperty(b.name, "dependency", d, err)
				continue
			}
			required[g] = true
		case property.TypePackage:
			v, err := sqlite.DecodePackage(d.Value)
			if err != nil {
				pc.invalidProperty(b.name, "dependency", d, err)
				continue
			}
			props = append(props, property.Build(property.TypePackageRequired,
				property.PackageRequired{PackageName: v.PackageName, VersionRange: v.Version}))
		default:
			before := len(props)
			props = pc.appendRaw(props, b.name, "dependency", d)
			if len(props) > before {
				added := props[len(props)-1]
				pc.depart(Departure{Code: DependencyKept, Bundle: b.name, AddedProperty: &added,
					Opm:    fmt.Sprintf("drops the %s dependency %s", d.Type, abbreviate(d.Value)),
					Olmcat: "keeps it as a bundle property of the same type, as opm's bundle render does"})
			}
		}
	}
	if !hasPackage {
		props = append(props, property.Build(property.TypePackage,
			property.Package{PackageName: pc.data.Name, Version: b.version}))
	}
	for g := range provided {
		props = append(props, property.Build(property.TypeGVK, property.GVK{Group: g.Group, Kind: g.Kind, Version: g.Version}))
	}
	for g := range required {
		props = append(props, property.Build(property.TypeGVKRequired, property.GVK{Group: g.Group, Kind: g.Kind, Version: g.Version}))
	}
	props = pc.fixPackageProperty(b, props)
	for _, obj := range b.objects {
		props = append(props, bundleObjectProperty(obj))
	}
	return sortProperties(dedupProperties(props))
}

// appendRaw adds a stored value, compacted; a value that is not JSON is dropped with a departure.
func (pc *packageConverter) appendRaw(props []fbc.Property, bundle, table string, p sqlite.TypedValue) []fbc.Property {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(p.Value)); err != nil {
		pc.invalidProperty(bundle, table, p, err)
		return props
	}
	return append(props, fbc.Property{Type: p.Type, Value: buf.Bytes()})
}

func (pc *packageConverter) invalidProperty(bundle, table string, p sqlite.TypedValue, err error) {
	pc.depart(Departure{Code: InvalidPropertyDropped, Bundle: bundle,
		Opm:    fmt.Sprintf("fails on the %s %s %s: %v", p.Type, table, abbreviate(p.Value), err),
		Olmcat: "leaves this value out"})
}

// fixPackageProperty makes sure there is exactly one olm.package, naming this package and version.
// opm fails on two distinct values (e.g. the loader's copy with "release" next to the channel walk's
// copy without) and writes a wrong one for a bundle listed in two packages.
func (pc *packageConverter) fixPackageProperty(b *bundleBuild, props []fbc.Property) []fbc.Property {
	var values []sqlite.PackageValue
	distinct := map[string]bool{}
	for _, p := range props {
		if p.Type == property.TypePackage {
			distinct[string(p.Value)] = true
			if v, err := sqlite.DecodePackage(string(p.Value)); err == nil {
				values = append(values, v)
			}
		}
	}
	// A release is kept only when the bundle is named as FBC requires for one
	// (<package>-v<version>-<release>); otherwise the catalog would not validate.
	releaseOK := func(v sqlite.PackageValue) bool {
		return v.Release == "" || b.name == fmt.Sprintf("%s-v%s-%s", pc.data.Name, v.Version, v.Release)
	}
	bestIdx := -1
	for i, v := range values {
		if v.PackageName != pc.data.Name || v.Version != b.version || !releaseOK(v) {
			continue
		}
		if bestIdx < 0 || (values[bestIdx].Release == "" && v.Release != "") {
			bestIdx = i
		}
	}
	if len(distinct) == 1 && bestIdx >= 0 {
		return props
	}
	want := property.Package{PackageName: pc.data.Name, Version: b.version}
	if bestIdx >= 0 {
		want.Release = values[bestIdx].Release
	}
	var stored []string
	for v := range distinct {
		stored = append(stored, v)
	}
	sort.Strings(stored)
	opm := "fails: must be exactly one property with type olm.package"
	if len(distinct) == 1 {
		opm = "writes the stored olm.package " + stored[0] + ", which does not name this package and version (opm validate then fails)"
	}
	out := slices.DeleteFunc(props, func(p fbc.Property) bool { return p.Type == property.TypePackage })
	fixed := property.Build(property.TypePackage, want)
	if b.recovered {
		return append(out, fixed) // part of the version-recovered departure
	}
	pc.depart(Departure{Code: PackagePropertyFixed, Bundle: b.name,
		Opm:    fmt.Sprintf("%s (stored: %s)", opm, strings.Join(stored, ", ")),
		Olmcat: "writes the single olm.package " + string(fixed.Value)})
	return append(out, fixed)
}

func bundleObjectProperty(obj []byte) fbc.Property {
	data := make([]byte, 0, base64.StdEncoding.EncodedLen(len(obj))+12)
	data = append(data, `{"data":"`...)
	data = base64.StdEncoding.AppendEncode(data, obj)
	data = append(data, `"}`...)
	return fbc.Property{Type: property.TypeBundleObject, Value: data}
}

func dedupProperties(props []fbc.Property) []fbc.Property {
	type key struct{ t, v string }
	seen := make(map[key]bool, len(props))
	out := props[:0]
	for _, p := range props {
		k := key{p.Type, string(p.Value)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// sortProperties sorts by (type, value) and then moves bundle objects and CSV metadata to the end,
// keeping their relative order.
func sortProperties(props []fbc.Property) []fbc.Property {
	slices.SortFunc(props, func(a, b fbc.Property) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return bytes.Compare(a.Value, b.Value)
	})
	out := make([]fbc.Property, 0, len(props))
	for _, p := range props {
		if !isCSVMetadataOrObject(p.Type) {
			out = append(out, p)
		}
	}
	for _, p := range props {
		if isCSVMetadataOrObject(p.Type) {
			out = append(out, p)
		}
	}
	return out
}

func sortRelatedImages(ri []fbc.RelatedImage) {
	sort.SliceStable(ri, func(i, j int) bool { return ri[i].Image < ri[j].Image })
}

// abbreviate shortens a stored value for a report line.
func abbreviate(s string) string {
	const max = 100
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
