package model

import (
	"regexp"
	"slices"

	"github.com/olmcat/olmcat/fbc"
)

// serveSchemaName is the pattern opm serve requires of custom schema names (its cache keys them
// by schema); opm validate does not check it.
var serveSchemaName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`)

// validateOthers warns about blobs of custom schemas that opm validate accepts but opm serve
// refuses to load, and about catalog templates left among a catalog's files.
func validateOthers(others []fbc.Meta) Issues {
	var issues Issues
	for _, o := range others {
		if slices.Contains(fbc.TemplateSchemas, o.Schema) {
			issues = append(issues, newIssue(Warning, "template-in-catalog", o.Loc, o.Package, "", "",
				"move the template out of the catalog directory and give it as a catalog of its own, or render it (olmcat render-template) into the catalog",
				"a catalog template (schema %s) inside a catalog is not rendered: opm serves it as a blob of a custom schema, and none of its bundles", o.Schema))
			continue
		}
		if serveSchemaName.MatchString(o.Schema) {
			continue
		}
		issues = append(issues, newIssue(Warning, "custom-schema-name", o.Loc, o.Package, "", "",
			"rename the schema to letters, digits, '.', '_' and '-' only (e.g. com.example.custom)",
			"invalid custom schema meta: invalid schema %q: must match %s (opm validate accepts it, opm serve refuses to start)",
			o.Schema, serveSchemaName.String()))
	}
	return issues
}

// validateDeprecationBlobs checks what the model cannot show about olm.deprecations blobs: more
// than one per package, entries without a schema, duplicate references, named package references.
// Unknown packages, channels and bundles are reported while the model is built.
func validateDeprecationBlobs(c *fbc.Catalog) Issues {
	var issues Issues
	seen := map[string]fbc.Location{}
	for _, d := range c.Deprecations {
		add := func(rule, hint, format string, args ...any) {
			issues = append(issues, newIssue(Error, rule, d.Loc, d.Package, "", "", hint, format, args...))
		}
		if d.Package == "" {
			continue // reported while the model is built
		}
		if first, dup := seen[d.Package]; dup {
			add("deprecation-duplicate", "merge the entries into one olm.deprecations blob per package"+firstAt(first, d.Loc),
				"expected a maximum of one deprecation per package: %q", d.Package)
		} else {
			seen[d.Package] = d.Loc
		}
		type reference struct{ Schema, Name string }
		refs := map[reference]bool{}
		for j, e := range d.Entries {
			ref := reference{e.Reference.Schema, e.Reference.Name}
			switch {
			case ref.Schema == "":
				continue // reported while the model is built
			case refs[ref]:
				add("deprecation-duplicate-entry", "remove the repeated entry",
					"duplicate deprecation entry [%d] {schema: %q, name: %q} for package %q", j, ref.Schema, ref.Name, d.Package)
			case ref.Schema == fbc.SchemaPackage && ref.Name != "":
				add("deprecation-package-named", "drop reference.name from the olm.package entry",
					"package name must be empty for deprecated package %q (specified %q)", d.Package, ref.Name)
			}
			refs[ref] = true
		}
	}
	return issues
}
