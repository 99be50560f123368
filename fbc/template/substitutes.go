package template

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
)

// renderSubstitutes applies each substitution to complete, valid FBC entries: in every channel
// holding Base, the bundle of the image Name takes Base's place in the upgrade graph (its edges,
// plus a skip of Base), and what replaced or skipped Base now replaces or skips it.
func renderSubstitutes(ctx context.Context, t *Substitutes, src *bundleSource, loc locator) (*fbc.Catalog, error) {
	cat, err := loadEntries(t.Entries, loc)
	if err != nil {
		return nil, fmt.Errorf("render: unable to create declarative config from entries: %v", err)
	}
	if err := firstModelError(cat); err != nil {
		return nil, fmt.Errorf("render: entries are not valid FBC: %v", err)
	}
	usedBase, usedName := map[string]bool{}, map[string]bool{}
	for i, s := range t.Substitutions {
		if err := substitute(ctx, cat, s, src, usedBase, usedName, loc.at(at(loc.lines.Substitutions, i))); err != nil {
			return nil, fmt.Errorf("render: error processing substitution %s->%s: %v", s.Base, s.Name, err)
		}
	}
	dropUnknownFields(cat)
	return cat, nil
}

func substitute(ctx context.Context, cat *fbc.Catalog, s Substitution, src *bundleSource, usedBase, usedName map[string]bool, subLoc fbc.Location) error {
	switch {
	case s.Name == "":
		return errors.New("substitution name cannot be empty")
	case s.Base == "":
		return errors.New("substitution base cannot be empty")
	case s.Name == s.Base:
		return errors.New("substitution name and base cannot be the same")
	case usedBase[s.Base]:
		return fmt.Errorf("base %q is already substituted by an earlier substitution", s.Base)
	case usedName[s.Name]:
		return fmt.Errorf("name %q is already used by an earlier substitution", s.Name)
	}
	usedBase[s.Base], usedName[s.Name] = true, true
	baseIndex := slices.IndexFunc(cat.Bundles, func(b fbc.Bundle) bool { return b.Name == s.Base })
	if baseIndex < 0 {
		return fmt.Errorf("base bundle %q does not exist in the template entries", s.Base)
	}
	if err := src.render(ctx, []string{s.Name}); err != nil {
		return fmt.Errorf("failed to render bundle image reference %q: %v", s.Name, err)
	}
	sub := src.get(s.Name).bundle
	sub.Loc = subLoc
	if sub.Name == "" {
		return fmt.Errorf("rendered bundle image reference %q contains no bundles", s.Name)
	}
	if err := checkNewer(cat.Bundles[baseIndex], sub); err != nil {
		return err
	}
	for ci := range cat.Channels {
		ch := &cat.Channels[ci]
		var bases []int
		for i, e := range ch.Entries {
			if e.Name == s.Base {
				bases = append(bases, i)
			}
		}
		for i := len(bases) - 1; i >= 0; i-- {
			base := &ch.Entries[bases[i]]
			moved := fbc.ChannelEntry{Name: sub.Name, Replaces: base.Replaces, Skips: append(slices.Clone(base.Skips), s.Base), SkipRange: base.SkipRange}
			base.Replaces, base.Skips, base.SkipRange = "", nil, ""
			ch.Entries = append(ch.Entries, moved)
		}
		for i := range len(ch.Entries) - len(bases) {
			e := &ch.Entries[i]
			if e.Replaces == s.Base {
				e.Replaces = sub.Name
				e.Skips = append(e.Skips, s.Base)
			} else if slices.Contains(e.Skips, s.Base) {
				e.Skips = append(e.Skips, sub.Name)
				e.Skips = slices.DeleteFunc(e.Skips, func(skip string) bool { return skip == s.Base })
			}
		}
	}
	cat.Bundles = append(cat.Bundles, sub)
	if err := firstModelError(cat); err != nil {
		return fmt.Errorf("resulting config is not valid FBC: %v", err)
	}
	return nil
}

// checkNewer refuses a substitute whose version (and release) is not above its base's.
func checkNewer(base, sub fbc.Bundle) error {
	bv, br, err := bundleVersion(base)
	if err != nil {
		return err
	}
	sv, sr, err := bundleVersion(sub)
	if err != nil {
		return err
	}
	c := sv.Compare(bv)
	if c == 0 {
		c = compareRelease(sr, br)
	}
	if c <= 0 {
		return fmt.Errorf("substitute %q (version %s) must be newer than base %q (version %s)", sub.Name, versionString(sv, sr), base.Name, versionString(bv, br))
	}
	return nil
}

func bundleVersion(b fbc.Bundle) (semver.Version, string, error) {
	props, err := property.Parse(b.Properties)
	if err != nil {
		return semver.Version{}, "", fmt.Errorf("parse properties for bundle %q: %v", b.Name, err)
	}
	if len(props.Packages) != 1 {
		return semver.Version{}, "", fmt.Errorf("bundle %q has %d %q properties, expected exactly 1", b.Name, len(props.Packages), property.TypePackage)
	}
	v, err := semver.Parse(props.Packages[0].Version)
	if err != nil {
		return semver.Version{}, "", fmt.Errorf("bundle %q has invalid version %q: %v", b.Name, props.Packages[0].Version, err)
	}
	return v, props.Packages[0].Release, nil
}

// compareRelease orders releases as semver pre-release identifiers do, no release first.
func compareRelease(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	}
	va, errA := semver.Parse("0.0.0-" + a)
	vb, errB := semver.Parse("0.0.0-" + b)
	if errA != nil || errB != nil {
		if a < b {
			return -1
		}
		return 1
	}
	return va.Compare(vb)
}

func versionString(v semver.Version, release string) string {
	if release == "" {
		return v.String()
	}
	return v.String() + " release " + release
}

// firstModelError is the first error opm's model conversion would meet in a catalog: structural
// problems in the order blobs are placed, then validation.
func firstModelError(cat *fbc.Catalog) error {
	m, issues := model.FromCatalog(cat)
	for _, i := range issues {
		if i.Severity == model.Error {
			return errors.New(i.Message)
		}
	}
	for _, i := range model.Validate(m, model.Options{}) {
		if i.Severity == model.Error {
			return errors.New(i.Message)
		}
	}
	return nil
}
