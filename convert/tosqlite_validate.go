package convert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/plural"
)

// InvalidCatalogError refuses a catalog that fails validation; Issues is the validation report.
type InvalidCatalogError struct{ Issues model.Issues }

func (e *InvalidCatalogError) Error() string {
	return fmt.Sprintf("the catalog is invalid (%s); fix them, or pass --permissive to write the valid part and report the rest:\n%s",
		plural.Of(len(e.Issues), "problem"), e.Issues.Error())
}

func (e *InvalidCatalogError) Unwrap() error { return e.Issues }

// sqliteWritabilityIssues checks what an index.db needs from a package: at least one channel, a default
// channel among them, a single head per channel that is a real bundle, a replaces chain without a
// cycle, and bundles with parsable properties and exactly one olm.package with a semver version.
// These are rules opm's validation enforces too.
func sqliteWritabilityIssues(m *model.Model) model.Issues {
	var issues model.Issues
	add := func(rule string, loc fbc.Location, pkg, ch, bundle, hint, format string, args ...any) {
		issues = append(issues, &model.Issue{Severity: model.Error, Rule: rule, Loc: loc, File: loc.File, Line: loc.Line,
			Package: pkg, Channel: ch, Bundle: bundle, Message: fmt.Sprintf(format, args...), Hint: hint})
	}
	for _, pkg := range m.SortedPackages() {
		if len(pkg.Channels) == 0 {
			add("package-without-channels", pkg.Loc, pkg.Name, "", "", "add an olm.channel blob for the package",
				"package has no channels")
		} else if _, ok := pkg.Channels[pkg.DefaultChannel]; !ok && !(pkg.DefaultChannel == "" && len(pkg.Channels) == 1) {
			add("default-channel-not-found", pkg.Loc, pkg.Name, "", "", "set defaultChannel to one of the package's channels",
				"default channel %q is not a channel of the package", pkg.DefaultChannel)
		}
		for _, ch := range pkg.SortedChannels() {
			heads := ch.Heads()
			switch {
			case len(heads) != 1:
				what := "no channel head (every entry is replaced or skipped: a cycle)"
				if len(heads) > 1 {
					what = "multiple channel heads: " + strings.Join(heads, ", ")
				}
				add("channel-head", ch.Loc, pkg.Name, ch.Name, "", "make exactly one entry the newest: the one no other entry replaces or skips", "%s", what)
			case ch.Entries[heads[0]].Bundle == nil:
				add("head-without-bundle", ch.Loc, pkg.Name, ch.Name, "", "add the olm.bundle blob of the channel head", "channel head %q has no olm.bundle blob", heads[0])
			default:
				if _, cycle := ch.ReplacesChain(heads[0]); cycle != nil {
					add("replaces-cycle", ch.Loc, pkg.Name, ch.Name, "", "break the cycle in replaces", "replaces chain has a cycle: %s", strings.Join(cycle, " -> "))
				}
			}
		}
		for _, b := range pkg.SortedBundles() {
			issues = append(issues, sqliteBundleIssues(pkg, b)...)
		}
	}
	return issues
}

// sqliteBundleIssues repeats the bundle rules the conversion relies on. It only counts property
// types: model validation, which runs first, has parsed every value.
func sqliteBundleIssues(pkg *model.Package, b *model.Bundle) model.Issues {
	issue := func(rule, hint, format string, args ...any) model.Issues {
		return model.Issues{{Severity: model.Error, Rule: rule, Loc: b.Loc, File: b.Loc.File, Line: b.Loc.Line,
			Package: pkg.Name, Bundle: b.Name, Message: fmt.Sprintf(format, args...), Hint: hint}}
	}
	var packages, csvMetadatas int
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypePackage:
			packages++
		case property.TypeCSVMetadata:
			csvMetadatas++
		}
	}
	switch {
	case packages != 1:
		return issue("bundle-olm-package", "give the bundle exactly one olm.package property",
			"must be exactly one property with type %q, found %d", property.TypePackage, packages)
	case b.VersionErr != nil:
		return issue("bundle-version", "use a semver version in olm.package", "invalid version %q: %v", b.VersionString, b.VersionErr)
	case csvMetadatas > 1:
		return issue("bundle-csv-metadata", "keep one olm.csv.metadata property", "expected at most 1 property of type %q, found %d", property.TypeCSVMetadata, csvMetadatas)
	}
	return nil
}

// dropInvalidForSQLite removes from the model what the issues name, the smallest unit first: a
// bundle, else a channel, else the package. Then it checks again, since a dropped bundle can leave a
// channel without its head and a dropped channel a package without its default, and drops more until
// nothing is invalid. It returns the issues of those further rounds.
func dropInvalidForSQLite(m *model.Model, issues model.Issues, recheck func(*model.Model) model.Issues) model.Issues {
	var further model.Issues
	for round := 0; ; round++ {
		for _, is := range issues {
			pkg := m.Packages[is.Package]
			if pkg == nil {
				continue
			}
			switch {
			case is.Bundle != "":
				delete(pkg.Bundles, is.Bundle)
				for _, ch := range pkg.Channels {
					if e, ok := ch.Entries[is.Bundle]; ok {
						e.Bundle = nil
					}
				}
			case is.Channel != "":
				delete(pkg.Channels, is.Channel)
			default:
				delete(m.Packages, is.Package)
			}
		}
		if round > 0 {
			further = append(further, issues...)
		}
		if issues = recheck(m); len(issues) == 0 {
			break
		}
	}
	sort.SliceStable(further, func(i, j int) bool { return further[i].Package < further[j].Package })
	return further
}
