package model

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// dns1123Label is what Kubernetes (and opm, when it loads an FBC) accepts as a package name.
var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validatePackage applies the package-level rules; withBundleBlobs adds the rules about each bundle
// alone (checkBundleBlob), which a streaming validation has applied as the blobs went by.
func validatePackage(p *Package, withBundleBlobs bool) Issues {
	var issues Issues
	perr := func(rule, hint, format string, args ...any) {
		issues = append(issues, newIssue(Error, rule, p.Loc, p.Name, "", "", hint, format, args...))
	}
	switch {
	case p.Name == "":
		perr("package-name-empty", "set the olm.package blob's name", "config contains package with no name")
	case len(p.Name) > 63:
		perr("package-name-invalid", "use a lowercase RFC 1123 label of at most 63 characters",
			"invalid package name %q: must be no more than 63 characters", p.Name)
	case !dns1123Label.MatchString(p.Name):
		perr("package-name-invalid", "use lowercase letters, digits and '-', starting and ending with a letter or digit",
			"invalid package name %q: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", p.Name)
	}

	switch {
	case p.DefaultChannel == "":
		perr("default-channel-unset", "set defaultChannel in the olm.package blob to one of the package's channels",
			"default channel must be set")
	case p.Channels[p.DefaultChannel] == nil:
		// opm makes an empty channel of that name, which then fails its own check.
		issues = append(issues, newIssue(Error, "default-channel-missing", p.Loc, p.Name, p.DefaultChannel, "",
			fmt.Sprintf("set defaultChannel to an existing channel (%s) or add an olm.channel blob named %q", channelList(p), p.DefaultChannel),
			"invalid channel %q: channel must contain at least one bundle (defaultChannel names a channel that has no olm.channel blob)", p.DefaultChannel))
	}
	if len(p.Channels) == 0 && (p.DefaultChannel == "" || p.Channels[p.DefaultChannel] != nil) {
		perr("package-without-channels", "add an olm.channel blob for the package", "package must contain at least one channel")
	}

	for _, ch := range p.SortedChannels() {
		issues = append(issues, validateChannel(ch)...)
	}
	var scratch []byte
	for _, b := range p.SortedBundles() {
		if withBundleBlobs {
			blob := fbc.Bundle{Name: b.Name, Package: p.Name, Image: b.Image, Properties: b.Properties, Loc: b.Loc}
			issues = append(issues, checkBundleBlob(&blob, &scratch)...)
		}
		if b.Deprecation != nil && b.Deprecation.Message == "" {
			issues = append(issues, newIssue(Error, "deprecation-message-empty", b.Loc, p.Name, "", b.Name,
				"give the olm.bundle deprecation entry a message", "invalid bundle %q: invalid deprecation: message must be set", b.Name))
		}
	}
	issues = append(issues, bundlesInNoChannel(p)...)
	issues = append(issues, duplicateVersions(p)...)
	if p.Deprecation != nil && p.Deprecation.Message == "" {
		perr("deprecation-message-empty", "give the olm.package deprecation entry a message",
			"invalid deprecation: message must be set")
	}
	return issues
}

func channelList(p *Package) string {
	names := make([]string, 0, len(p.Channels))
	for n := range p.Channels {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none exists yet"
	}
	return strings.Join(names, ", ")
}

func validateChannel(ch *Channel) Issues {
	var issues Issues
	pkg := ch.Package.Name
	cerr := func(rule, bundle, hint, format string, args ...any) {
		issues = append(issues, newIssue(Error, rule, ch.Loc, pkg, ch.Name, bundle, hint, format, args...))
	}
	if ch.Name == "" {
		cerr("channel-name-empty", "", "set the olm.channel blob's name", "package %q contains channel with no name", pkg)
	}
	if len(ch.Entries) == 0 {
		cerr("channel-empty", "", "add entries to the channel or remove the olm.channel blob",
			"invalid channel %q: channel must contain at least one bundle", ch.Name)
	}
	for _, e := range ch.SortedEntries() {
		for i, s := range e.Skips {
			if s == "" {
				cerr("skip-empty", e.Name, "remove the empty string from the entry's skips",
					"invalid channel %q: invalid bundle %q: skip[%d] is empty", ch.Name, e.Name, i)
			}
		}
		if e.SkipRange != "" {
			if _, err := parseRange(e.SkipRange); err != nil {
				cerr("skiprange-invalid", e.Name, `write a semver range such as ">=1.0.0 <1.2.0"`,
					"invalid channel %q: invalid bundle %q: invalid skipRange %s: %s", ch.Name, e.Name, textsafe.QuoteCut(e.SkipRange), textsafe.ErrorAbout(err, e.SkipRange))
			}
		}
	}
	for i, prop := range ch.Properties {
		if err := parseProperty(prop, nil); err != nil {
			cerr("channel-property-invalid", "", channelPropertyHint(prop.Type),
				"invalid channel %q: parse property[%d] of type %q: %v", ch.Name, i, prop.Type, err)
		}
	}
	if ch.Deprecation != nil && ch.Deprecation.Message == "" {
		cerr("deprecation-message-empty", "", "give the olm.channel deprecation entry a message",
			"invalid channel %q: invalid deprecation: message must be set", ch.Name)
	}
	issues = append(issues, validateGraph(ch)...)
	return issues
}

func channelPropertyHint(typ string) string {
	if typ == property.TypeChannel {
		return `olm.channel values are {"channelName": string, "priority": integer}`
	}
	return "make the property value valid JSON of its type"
}

func bundlesInNoChannel(p *Package) Issues {
	inChannel := map[string]bool{}
	for _, ch := range p.Channels {
		for name := range ch.Entries {
			inChannel[name] = true
		}
	}
	var issues Issues
	for _, b := range p.SortedBundles() {
		if !inChannel[b.Name] {
			issues = append(issues, newIssue(Error, "bundle-in-no-channel", b.Loc, p.Name, "", b.Name,
				"add the bundle to a channel's entries or remove the olm.bundle blob",
				"package %q, bundle %q not found in any channel entries", p.Name, b.Name))
		}
	}
	return issues
}

// duplicateVersions applies opm's rule that no two bundles of a package in its channels share a
// version (with the release appended, when there is one).
func duplicateVersions(p *Package) Issues {
	byVersion := map[string]map[string]*Bundle{}
	for _, ch := range p.Channels {
		for _, e := range ch.Entries {
			b := e.Bundle
			if b == nil || b.VersionErr != nil {
				continue
			}
			v := bundleVersionKey(b)
			if byVersion[v] == nil {
				byVersion[v] = map[string]*Bundle{}
			}
			byVersion[v][b.Name] = b
		}
	}
	versions := make([]string, 0, len(byVersion))
	for v, bundles := range byVersion {
		if len(bundles) > 1 {
			versions = append(versions, v)
		}
	}
	sort.Strings(versions)
	var issues Issues
	for _, v := range versions {
		names := make([]string, 0, len(byVersion[v]))
		var first *Bundle
		for n, b := range byVersion[v] {
			names = append(names, n)
			if first == nil || locBefore(b, first) {
				first = b
			}
		}
		sort.Strings(names)
		issues = append(issues, newIssue(Error, "duplicate-version", first.Loc, p.Name, "", first.Name,
			"give each bundle of the package its own version in its olm.package property",
			"duplicate versions found in bundles: [{%s: [%s]}]", v, strings.Join(names, ", ")))
	}
	return issues
}

func locBefore(a, b *Bundle) bool {
	if a.Loc.File != b.Loc.File {
		return a.Loc.File < b.Loc.File
	}
	if a.Loc.Line != b.Loc.Line {
		return a.Loc.Line < b.Loc.Line
	}
	return a.Name < b.Name
}
