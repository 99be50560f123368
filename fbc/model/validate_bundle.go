package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/imageref"
)

// releaseMaxLength is the longest release the ClusterServiceVersion CRD (and so opm) accepts.
const releaseMaxLength = 20

// checkBundleBlob applies opm's rules about one bundle that need nothing but the bundle itself:
// properties parse, exactly one olm.package naming the bundle's package with a semver version (and
// a well-formed release), an image or manifests. scratch is reused between calls.
func checkBundleBlob(b *fbc.Bundle, scratch *[]byte) Issues {
	var issues Issues
	pkg := b.Package
	berr := func(rule, hint, format string, args ...any) {
		issues = append(issues, newIssue(Error, rule, b.Loc, pkg, "", b.Name, hint, format, args...))
	}
	if b.Name == "" {
		berr("bundle-name-empty", "set the olm.bundle blob's name", "invalid bundle %q: name must be set", b.Name)
	}

	var packages []property.Package
	var objects int
	for i, prop := range b.Properties {
		if err := parseProperty(prop, scratch); err != nil {
			berr("property-invalid", propertyHint(prop.Type),
				"parse properties for bundle %q: parse property[%d] of type %q: %v", b.Name, i, prop.Type, err)
			continue
		}
		switch prop.Type {
		case property.TypePackage:
			var v property.Package
			_ = json.Unmarshal(prop.Value, &v) // parseProperty has decoded it already
			packages = append(packages, v)
		case property.TypeBundleObject:
			objects++
		}
	}

	if len(packages) != 1 {
		berr("package-property-count", `give the bundle exactly one olm.package property: {"packageName": "`+pkg+`", "version": "<semver>"}`,
			"package %q bundle %q must have exactly 1 %q property, found %d", pkg, b.Name, property.TypePackage, len(packages))
	} else {
		issues = append(issues, checkPackageProperty(b, packages[0])...)
	}

	if b.Image == "" && objects == 0 {
		berr("bundle-image-unset", "set the bundle's image, or keep its manifests as olm.bundle.object properties",
			"invalid bundle %q: bundle image must be set", b.Name)
	}
	issues = append(issues, checkImageRefs(b)...)
	return issues
}

func checkPackageProperty(b *fbc.Bundle, v property.Package) Issues {
	var issues Issues
	pkg := b.Package
	berr := func(rule, hint, format string, args ...any) {
		issues = append(issues, newIssue(Error, rule, b.Loc, pkg, "", b.Name, hint, format, args...))
	}
	if v.PackageName != pkg {
		berr("package-property-mismatch", fmt.Sprintf("set the olm.package property's packageName to %q, or move the bundle to package %q", pkg, v.PackageName),
			"package %q does not match %q property %q", pkg, property.TypePackage, v.PackageName)
	}
	version, err := semver.Parse(v.Version)
	if err != nil {
		berr("version-invalid", "write the olm.package version as semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], e.g. 1.2.0",
			"error parsing bundle %q version %q: %v", b.Name, v.Version, err)
		return issues
	}
	if v.Release == "" {
		return issues
	}
	if err := checkRelease(v.Release); err != nil {
		berr("release-invalid", "write the release as dot-separated alphanumeric identifiers of at most 20 characters, e.g. 2 or alpha.1",
			"invalid release %q in %q property for bundle %q: %v", v.Release, property.TypePackage, b.Name, err)
		return issues
	}
	if len(version.Build) > 0 {
		berr("release-with-build-metadata", "drop the +build part of the version, or the release",
			"invalid bundle %q: cannot use build metadata in version with a release version", b.Name)
	}
	if want := fmt.Sprintf("%s-v%s-%s", pkg, version.String(), v.Release); b.Name != want {
		berr("release-name-mismatch", fmt.Sprintf("rename the bundle (and its channel entries) to %q", want),
			"invalid bundle %q: name %q does not match normalized name %q", b.Name, b.Name, want)
	}
	return issues
}

// checkRelease applies opm's release syntax: at most 20 characters, dot-separated identifiers that
// are each a valid semver pre-release identifier.
func checkRelease(rel string) error {
	if len(rel) > releaseMaxLength {
		return fmt.Errorf("exceeds maximum length of %d characters", releaseMaxLength)
	}
	var errs []string
	for i, seg := range strings.Split(rel, ".") {
		if _, err := semver.NewPRVersion(seg); err != nil {
			errs = append(errs, fmt.Sprintf("segment %d: %v", i, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// bundleVersionKey is the version opm compares for uniqueness: the version, then "-" and the
// release when there is one.
func bundleVersionKey(b *Bundle) string {
	if b.Release != "" {
		return b.Version.String() + "-" + b.Release
	}
	return b.Version.String()
}

func propertyHint(typ string) string {
	switch typ {
	case property.TypePackage:
		return `olm.package values are {"packageName": string, "version": string}`
	case property.TypeGVK, property.TypeGVKRequired:
		return `olm.gvk values are {"group": string, "kind": string, "version": string}`
	case property.TypePackageRequired:
		return `olm.package.required values are {"packageName": string, "versionRange": string}`
	case property.TypeBundleObject:
		return `olm.bundle.object values are {"data": "<base64 manifest>"} or {"ref": "<relative path>"}`
	case property.TypeChannel:
		return channelPropertyHint(typ)
	}
	return "make the property value valid JSON of its type"
}

// checkImageRefs: the bundle's image and every related image, where set, is an image reference
// (imageref.Problem). opm takes any string; olmcat refuses one that is not a reference, since a line
// end in it adds a line (an image to mirror) to filter's image list and an escape sequence rewrites
// the terminal that shows it.
func checkImageRefs(b *fbc.Bundle) Issues {
	var issues Issues
	bad := func(field, image, problem string) {
		issues = append(issues, newIssue(Error, "image-reference-invalid", b.Loc, b.Package, "", b.Name,
			"write one image reference, e.g. quay.io/ns/name:tag or quay.io/ns/name@sha256:<64 hex digits>, with nothing around it",
			"invalid bundle %q: %s %s is not an image reference: %s", b.Name, field, imageref.Quote(image), problem))
	}
	if b.Image != "" {
		if p := imageref.Problem(b.Image); p != "" {
			bad("image", b.Image, p)
		}
	}
	for i, ri := range b.RelatedImages {
		if ri.Image == "" {
			continue
		}
		if p := imageref.Problem(ri.Image); p != "" {
			field := fmt.Sprintf("relatedImages[%d].image", i)
			if ri.Name != "" {
				field = fmt.Sprintf("relatedImages[%d].image (name %s)", i, imageref.Quote(ri.Name))
			}
			bad(field, ri.Image, p)
		}
	}
	return issues
}
