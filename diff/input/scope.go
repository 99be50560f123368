package input

import (
	"slices"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// IsTemplate reports whether the side was rendered from a catalog template (a file or a git
// revision of one).
func IsTemplate(s *diff.Side) bool { return strings.HasSuffix(s.Format, "template") }

// ScopeToTemplate narrows a diff of a catalog against a catalog template to the packages the
// template renders. A template is the catalog of one package (one file per OpenShift version in
// the catalog repositories), and the catalog it is compared with (the published index) holds
// every package: the packages the template does not render are not removed by it. When exactly
// one side is a template, the other side keeps only the blobs and problems of the template's
// packages (and its blobs of no package when the template has some); left are the packages it
// no longer holds, sorted. Nothing changes when both sides or neither are templates, or when the
// template names no package.
func ScopeToTemplate(oldSide, newSide *diff.Side) (other *diff.Side, left []string) {
	tmpl, other := oldSide, newSide
	switch {
	case IsTemplate(oldSide) == IsTemplate(newSide):
		return nil, nil
	case IsTemplate(newSide):
		tmpl, other = newSide, oldSide
	}
	keep, named := map[string]bool{}, false
	for _, p := range packagesOf(tmpl.Catalog) {
		keep[p], named = true, named || p != ""
	}
	if !named {
		return nil, nil // a template of no package (empty, or blobs of none) is compared whole
	}
	for _, p := range packagesOf(other.Catalog) {
		if !keep[p] && p != "" {
			left = append(left, p)
		}
	}
	if len(left) == 0 {
		return other, nil
	}
	slices.Sort(left)
	c := other.Catalog
	other.Catalog = &fbc.Catalog{
		Packages:     filter(c.Packages, keep, func(p fbc.Package) string { return p.Name }),
		Channels:     filter(c.Channels, keep, func(ch fbc.Channel) string { return ch.Package }),
		Bundles:      filter(c.Bundles, keep, func(b fbc.Bundle) string { return b.Package }),
		Deprecations: filter(c.Deprecations, keep, func(d fbc.Deprecation) string { return d.Package }),
		Others:       filter(c.Others, keep, func(m fbc.Meta) string { return m.Package }),
	}
	var problems model.Issues
	for _, i := range other.Problems {
		if i.Package == "" || keep[i.Package] { // a problem of no package is the input's as a whole
			problems = append(problems, i)
		}
	}
	other.Problems = problems
	return other, left
}

// packagesOf is every package a catalog's blobs name ("" for blobs of no package).
func packagesOf(c *fbc.Catalog) []string {
	if c == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range c.Packages {
		add(p.Name)
	}
	for _, ch := range c.Channels {
		add(ch.Package)
	}
	for _, b := range c.Bundles {
		add(b.Package)
	}
	for _, d := range c.Deprecations {
		add(d.Package)
	}
	for _, m := range c.Others {
		add(m.Package)
	}
	return out
}

func filter[T any](items []T, keep map[string]bool, pkg func(T) string) []T {
	var out []T
	for _, it := range items {
		if keep[pkg(it)] {
			out = append(out, it)
		}
	}
	return out
}
