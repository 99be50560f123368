package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	bsemver "github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
)

// release is the release part of a bundle's version, as operator-controller reads it from a
// registry+v1 version's build metadata ("1.0.0+2": release 2). nil is no release.
type release []bsemver.PRVersion

// releaseMaxLength is the longest release operator-registry accepts (the CSV's CRD limit).
const releaseMaxLength = 20

// newRelease parses a release as operator-registry's model.NewRelease does: dot-separated semver
// pre-release identifiers, at most 20 characters; "" is no release.
func newRelease(s string) (release, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > releaseMaxLength {
		return nil, fmt.Errorf("invalid release %q: exceeds maximum length of %d characters", s, releaseMaxLength)
	}
	segments := strings.Split(s, ".")
	r := make(release, 0, len(segments))
	var errs []error
	for i, seg := range segments {
		pr, err := bsemver.NewPRVersion(seg)
		if err != nil {
			errs = append(errs, fmt.Errorf("segment %d: %v", i, err))
			continue
		}
		r = append(r, pr)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid release %q: %v", s, err)
	}
	return r, nil
}

// compare orders releases: any release is above none; otherwise as semver pre-release identifiers.
func (r release) compare(o release) int {
	switch {
	case len(r) == 0 && len(o) > 0:
		return -1
	case len(o) == 0 && len(r) > 0:
		return 1
	}
	return bsemver.Version{Pre: r}.Compare(bsemver.Version{Pre: o})
}

// versionRelease is a bundle's version as operator-controller compares it.
type versionRelease struct {
	Version bsemver.Version
	Release release
}

// compare orders by version (build metadata ignored, as semver says), then release.
func (v versionRelease) compare(o versionRelease) int {
	if c := v.Version.Compare(o.Version); c != 0 {
		return c
	}
	return v.Release.compare(o.Release)
}

// legacyString is the version as operator-controller reports it for a registry+v1 bundle
// (BundleReleaseSupport off, the default): the release written back as build metadata.
func (v versionRelease) legacyString() string {
	out := v.Version
	if len(v.Release) > 0 {
		out.Build = make([]string, len(v.Release))
		for i, p := range v.Release {
			out.Build[i] = p.String()
		}
	}
	return out.String()
}

// parseLegacyVersion reads a registry+v1 version: build metadata that parses as a release is the
// release (and leaves the version); other build metadata stays in the version.
func parseLegacyVersion(s string) (versionRelease, error) {
	v, err := bsemver.Parse(s)
	if err != nil {
		return versionRelease{}, err
	}
	out := versionRelease{Version: v}
	if rel, err := newRelease(strings.Join(v.Build, ".")); err == nil && len(rel) > 0 {
		out.Release = rel
		out.Version.Build = nil
	}
	return out, nil
}

// Package is the value of an olm.package property. (Named so that a value of the wrong type is
// reported in the words operator-controller's own decoding uses: "Go struct field Package.version".)
type Package struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitzero"`
}

// bundleVersion is the version of a bundle from its first olm.package property, as
// operator-controller's bundleutil.GetVersionAndRelease reads it (BundleReleaseSupport off: an
// explicit release field is not used).
func bundleVersion(b *fbc.Bundle) (versionRelease, error) {
	for _, p := range b.Properties {
		if p.Type != "olm.package" {
			continue
		}
		var pkg Package
		if err := json.Unmarshal(p.Value, &pkg); err != nil {
			return versionRelease{}, fmt.Errorf("error unmarshalling package property: %w", err)
		}
		var rel struct {
			Release *string `json:"release"`
		}
		if err := json.Unmarshal(p.Value, &rel); err != nil {
			return versionRelease{}, fmt.Errorf("error unmarshalling package release field: %w", err)
		}
		return parseLegacyVersion(pkg.Version)
	}
	return versionRelease{}, fmt.Errorf("no package property found in bundle %q", b.Name)
}
