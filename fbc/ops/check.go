package ops

import (
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// InvalidResultError is returned when an operation would leave a package with errors it did not
// have before; the catalog is left as it was.
type InvalidResultError struct {
	Issues model.Issues
}

func (e *InvalidResultError) Error() string {
	lines := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		lines[i] = "  " + is.Error()
	}
	return "the result would not be a valid catalog, so nothing was changed:\n" + strings.Join(lines, "\n")
}

// checkPackages validates the given packages of after and fails with the errors that before did
// not already have (an operation must not be blamed for problems it did not cause).
func checkPackages(before, after *fbc.Catalog, pkgs ...string) error {
	var fresh model.Issues
	for _, pkg := range pkgs {
		had := map[string]bool{}
		for _, is := range model.ValidateCatalog(packagePart(before, pkg), model.Options{}).Errors() {
			had[issueKey(is)] = true
		}
		for _, is := range model.ValidateCatalog(packagePart(after, pkg), model.Options{}).Errors() {
			if !had[issueKey(is)] {
				fresh = append(fresh, is)
			}
		}
	}
	if len(fresh) > 0 {
		return &InvalidResultError{Issues: fresh}
	}
	return nil
}

func issueKey(i *model.Issue) string {
	return strings.Join([]string{i.Rule, i.Package, i.Channel, i.Bundle, i.Message}, "\x00")
}

// packagePart returns the blobs of one package (sharing the values of c).
func packagePart(c *fbc.Catalog, pkg string) *fbc.Catalog {
	part := &fbc.Catalog{}
	for _, p := range c.Packages {
		if p.Name == pkg {
			part.Packages = append(part.Packages, p)
		}
	}
	for _, ch := range c.Channels {
		if ch.Package == pkg {
			part.Channels = append(part.Channels, ch)
		}
	}
	for _, b := range c.Bundles {
		if b.Package == pkg {
			part.Bundles = append(part.Bundles, b)
		}
	}
	for _, d := range c.Deprecations {
		if d.Package == pkg {
			part.Deprecations = append(part.Deprecations, d)
		}
	}
	for _, o := range c.Others {
		if o.Package == pkg {
			part.Others = append(part.Others, o)
		}
	}
	return part
}
