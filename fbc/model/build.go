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

// FromCatalog builds the model of a serialized catalog. It never stops at the first problem: every
// structural problem (duplicates, blobs of unknown packages, entries without bundles, unusable
// deprecations) is returned as an Issue, and the model holds everything that could be placed.
// Graph and bundle rules are checked by Validate.
func FromCatalog(c *fbc.Catalog) (*Model, Issues) {
	m := &Model{Packages: make(map[string]*Package, len(c.Packages)), Others: c.Others}
	var issues Issues
	add := func(i *Issue) { issues = append(issues, i) }

	for _, p := range c.Packages {
		if first, dup := m.Packages[p.Name]; dup {
			add(newIssue(Error, "duplicate-package", p.Loc, p.Name, "", "",
				"keep one olm.package blob per package"+firstAt(first.Loc, p.Loc), "duplicate package %q", p.Name))
			continue
		}
		m.Packages[p.Name] = &Package{
			Name: p.Name, DefaultChannel: p.DefaultChannel, Icon: p.Icon, Description: p.Description,
			Properties: p.Properties, Loc: p.Loc,
			Channels: map[string]*Channel{}, Bundles: map[string]*Bundle{},
		}
	}
	for i := range c.Bundles {
		b := &c.Bundles[i]
		pkg, ok := m.Packages[b.Package]
		if !ok && b.Package == "" {
			add(newIssue(Error, "bundle-package-unset", b.Loc, "", "", b.Name,
				"set the olm.bundle blob's package field", "package name must be set for bundle %q", b.Name))
			continue
		}
		if !ok {
			add(newIssue(Error, "unknown-package", b.Loc, b.Package, "", b.Name,
				"add an olm.package blob for it or fix the bundle's package field",
				"unknown package %q for bundle %q", b.Package, b.Name))
			continue
		}
		if first, dup := pkg.Bundles[b.Name]; dup {
			add(newIssue(Error, "duplicate-bundle", b.Loc, b.Package, "", b.Name,
				"remove the second olm.bundle blob with this name"+firstAt(first.Loc, b.Loc),
				"package %q has duplicate bundle %q", b.Package, b.Name))
			continue
		}
		pkg.Bundles[b.Name] = newBundle(pkg, b)
	}
	for _, ch := range c.Channels {
		pkg, ok := m.Packages[ch.Package]
		if !ok {
			add(newIssue(Error, "unknown-package", ch.Loc, ch.Package, ch.Name, "",
				"add an olm.package blob for it or fix the channel's package field",
				"unknown package %q for channel %q", ch.Package, ch.Name))
			continue
		}
		if first, dup := pkg.Channels[ch.Name]; dup {
			add(newIssue(Error, "duplicate-channel", ch.Loc, ch.Package, ch.Name, "",
				"merge the two olm.channel blobs into one"+firstAt(first.Loc, ch.Loc),
				"package %q has duplicate channel %q", ch.Package, ch.Name))
			continue
		}
		mc := &Channel{Package: pkg, Name: ch.Name, Properties: ch.Properties, Loc: ch.Loc,
			Entries: make(map[string]*Entry, len(ch.Entries))}
		var missing []string
		for _, e := range ch.Entries {
			if _, dup := mc.Entries[e.Name]; dup {
				add(newIssue(Error, "duplicate-entry", ch.Loc, ch.Package, ch.Name, e.Name,
					"list each bundle once per channel", "duplicate channel entry %q", e.Name))
				continue
			}
			entry := &Entry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange, Bundle: pkg.Bundles[e.Name]}
			if entry.Bundle == nil {
				missing = append(missing, e.Name)
			}
			mc.Entries[e.Name] = entry
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			add(newIssue(Error, "entry-without-bundle", ch.Loc, ch.Package, ch.Name, "",
				"add the olm.bundle blobs or remove the entries",
				"no olm.bundle blobs found in package %q for olm.channel entries [%s]", ch.Package, strings.Join(missing, " ")))
		}
		pkg.Channels[ch.Name] = mc
	}
	for _, d := range c.Deprecations {
		issues = append(issues, applyDeprecations(m, d)...)
	}
	return m, issues
}

func newBundle(pkg *Package, b *fbc.Bundle) *Bundle {
	mb := &Bundle{Package: pkg, Name: b.Name, Image: b.Image, Properties: b.Properties,
		RelatedImages: b.RelatedImages, Loc: b.Loc}
	for _, p := range b.Properties {
		if p.Type != property.TypePackage {
			continue
		}
		var v property.Package
		if err := json.Unmarshal(p.Value, &v); err != nil {
			mb.VersionErr = fmt.Errorf("olm.package property: %w", err)
			return mb
		}
		mb.VersionString = v.Version
		mb.Release = v.Release
		ver, err := semver.Parse(v.Version)
		if err != nil {
			mb.VersionErr = err
		} else {
			mb.Version = ver
		}
		return mb
	}
	mb.VersionErr = fmt.Errorf("no olm.package property")
	return mb
}

func applyDeprecations(m *Model, d fbc.Deprecation) Issues {
	var issues Issues
	if d.Package == "" {
		return Issues{newIssue(Error, "deprecation-package-unset", d.Loc, "", "", "",
			"set the olm.deprecations blob's package to the package it deprecates",
			"package name must be set for deprecation item")}
	}
	pkg, ok := m.Packages[d.Package]
	if !ok {
		return Issues{newIssue(Error, "deprecation-unknown-package", d.Loc, d.Package, "", "",
			"set the olm.deprecations blob's package to an existing package name",
			"cannot apply deprecations to an unknown package %q", d.Package)}
	}
	for _, e := range d.Entries {
		dep := &Deprecation{Message: e.Message}
		switch e.Reference.Schema {
		case fbc.SchemaPackage:
			pkg.Deprecation = dep
		case fbc.SchemaChannel:
			ch, ok := pkg.Channels[e.Reference.Name]
			if !ok {
				issues = append(issues, newIssue(Error, "deprecation-unknown-channel", d.Loc, d.Package, e.Reference.Name, "",
					"remove the entry or fix the channel name",
					"cannot deprecate channel %q for package %q: channel not found", e.Reference.Name, d.Package))
				continue
			}
			ch.Deprecation = dep
		case fbc.SchemaBundle:
			b, ok := pkg.Bundles[e.Reference.Name]
			if !ok {
				issues = append(issues, newIssue(Error, "deprecation-unknown-bundle", d.Loc, d.Package, "", e.Reference.Name,
					"remove the entry or fix the bundle name",
					"cannot deprecate bundle %q for package %q: bundle not found", e.Reference.Name, d.Package))
				continue
			}
			b.Deprecation = dep
		case "":
			issues = append(issues, newIssue(Error, "deprecation-bad-reference", d.Loc, d.Package, "", "",
				"set reference.schema to olm.package, olm.channel or olm.bundle",
				"schema must be set for deprecation entry for package %q", d.Package))
		default:
			issues = append(issues, newIssue(Error, "deprecation-bad-reference", d.Loc, d.Package, "", "",
				"reference.schema must be olm.package, olm.channel or olm.bundle",
				"cannot deprecate object with schema %q", e.Reference.Schema))
		}
	}
	return issues
}

// firstAt names where the first of two blobs of the same name is, for the issue placed at the
// second (the stray copy): "; the first is at a.yaml:3, this one at b.yaml:40". Nothing when the
// input has no places (an index.db).
func firstAt(first, second fbc.Location) string {
	if first.File == "" && first.Line == 0 {
		return ""
	}
	return fmt.Sprintf("; the first is at %s, this one at %s", first, second)
}
