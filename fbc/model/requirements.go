package model

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// Provision is what the bundles of one catalog provide to other bundles' requirements, read as
// OLM v0's resolver reads them (resolver.go, predicateForRequiredPackageProperty and
// predicateForRequiredGVKProperty): an olm.package.required is met by any bundle of that package
// whose version is in the range, an olm.gvk.required by any bundle with an olm.gvk property of the
// same group, version and kind. OLM looks in every catalog of the cluster; a Provision knows one.
type Provision struct {
	gvks     map[property.GVK]bool
	versions map[string][]semver.Version // package -> versions of its bundles
}

// NewProvision indexes what the catalog's bundles provide.
func NewProvision(m *Model) *Provision {
	p := &Provision{gvks: map[property.GVK]bool{}, versions: map[string][]semver.Version{}}
	for name, pkg := range m.Packages {
		for _, b := range pkg.Bundles {
			if b.VersionErr == nil && b.VersionString != "" {
				p.versions[name] = append(p.versions[name], b.Version)
			}
			p.gvks = addProvidedGVKs(p.gvks, b.Properties)
		}
	}
	return p
}

// addProvidedGVKs adds the olm.gvk values among props to the set (made when nil), which it returns.
func addProvidedGVKs(set map[property.GVK]bool, props []fbc.Property) map[property.GVK]bool {
	for _, prop := range props {
		if prop.Type != property.TypeGVK {
			continue
		}
		var g property.GVK
		if json.Unmarshal(prop.Value, &g) == nil {
			if set == nil {
				set = map[property.GVK]bool{}
			}
			set[g] = true
		}
	}
	return set
}

// Unmet describes each requirement of the bundle that no bundle of the catalog provides, sorted:
// `package "P" in range "R"` or `API group/version, Kind=K`. Requirements that do not parse are
// left to the property rules, which report them.
func (p *Provision) Unmet(b *Bundle) []string {
	var out []string
	for _, raw := range b.PropertiesOfType(property.TypePackageRequired) {
		var req property.PackageRequired
		if json.Unmarshal(raw, &req) != nil {
			continue
		}
		inRange, err := semver.ParseRange(req.VersionRange)
		if err != nil {
			continue
		}
		met := false
		for _, v := range p.versions[req.PackageName] {
			met = met || inRange(v)
		}
		if !met {
			out = append(out, fmt.Sprintf("package %q in range %q", req.PackageName, req.VersionRange))
		}
	}
	for _, raw := range b.PropertiesOfType(property.TypeGVKRequired) {
		var g property.GVK
		if json.Unmarshal(raw, &g) != nil {
			continue
		}
		if !p.gvks[g] {
			out = append(out, "API "+gvkText(g))
		}
	}
	sort.Strings(out)
	return out
}

func gvkText(g property.GVK) string {
	group := g.Group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("%s/%s, Kind=%s", group, g.Version, g.Kind)
}

// unmetRequirements reports, as information, every bundle that requires a package or an API no
// bundle of the catalog provides. It is not an error: OLM looks for providers in every catalog of
// the cluster. When none has one, OLM installs nothing that needs the bundle and keeps the users of
// older bundles on their installed version instead of upgrading them to it. This rule looks across
// packages, so it runs on whole catalogs only (olmcat validate), never package by package.
// provided adds olm.gvk values the model's bundles no longer hold (the streaming validator keeps them
// apart).
func unmetRequirements(m *Model, provided map[property.GVK]bool) Issues {
	p := NewProvision(m)
	for g := range provided {
		p.gvks[g] = true
	}
	var issues Issues
	for _, pkg := range m.SortedPackages() {
		for _, b := range pkg.SortedBundles() {
			unmet := p.Unmet(b)
			if len(unmet) == 0 {
				continue
			}
			issues = append(issues, newIssue(Info, "requirement-not-in-catalog", b.Loc, pkg.Name, "", b.Name,
				"add a bundle providing it to this catalog, or make sure every cluster using the catalog has another catalog that provides it",
				"the bundle requires %s, which no bundle of this catalog provides: OLM v0 installs it, or upgrades to it, only where another catalog provides that; otherwise its users stay on their installed version",
				strings.Join(unmet, " and ")).ForOLM(OLMv0))
		}
	}
	return issues
}
