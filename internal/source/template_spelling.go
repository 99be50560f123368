package source

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// templatesDir is the directory community-operators-prod (and the repositories that copy its
// layout) keep catalog templates in: operators/PKG/catalog-templates/*.yaml.
const templatesDir = "catalog-templates"

// notQuiteTemplate refuses a single catalog file that is no template but looks meant to be one:
// its first document's schema (found at line) is not a schema of a File-Based Catalog and is
// close to a template schema (olm.template.basik, OLM.Semver, olm.template.semver) or in opm's
// namespace for them (olm.template.fancy), or the file sits in a catalog-templates directory. opm reads such a file as a catalog of custom blobs and
// calls it valid, so a misspelled template would pass review without a bundle. Anything else
// (nil) is read as the catalog it is.
func (s *Source) notQuiteTemplate(schema string, line int) error {
	switch schema {
	case fbc.SchemaPackage, fbc.SchemaChannel, fbc.SchemaBundle, fbc.SchemaDeprecations:
		return nil
	}
	found := "has no schema"
	if schema != "" {
		found = fmt.Sprintf("has schema %q (line %d)", schema, line)
	}
	if meant, ok := meantTemplateSchema(schema); ok {
		return &Error{Ref: s.ref.Raw, Problem: BadTemplate,
			Detail: fmt.Sprintf("its first document %s, which is no catalog schema: it is probably the template schema %s misspelled, and read as it is the file would be a catalog of custom blobs", found, meant),
			Hint:   "write schema: " + meant}
	}
	known := strings.Join(fbc.TemplateSchemas, ", ")
	if strings.HasPrefix(strings.ToLower(schema), "olm.template.") {
		// opm's namespace for templates: no catalog blob has such a schema, and opm alpha
		// render-template refuses it ("unknown template schema")
		return &Error{Ref: s.ref.Raw, Problem: BadTemplate,
			Detail: fmt.Sprintf("its first document %s, a template schema opm does not know (it renders %s), and read as it is the file would be a catalog of custom blobs", found, known),
			Hint:   "write the schema of the template it is"}
	}
	if !inTemplatesDir(s.ref) {
		return nil
	}
	return &Error{Ref: s.ref.Raw, Problem: BadTemplate,
		Detail: fmt.Sprintf("a file in a %s directory whose first document %s, not a catalog template schema (%s)", templatesDir, found, known),
		Hint:   "give it the schema of the template it is, or move it out of " + templatesDir + "/ if it is a catalog"}
}

// inTemplatesDir reports whether a file reference (on disk or at a git revision) is in a
// directory named catalog-templates.
func inTemplatesDir(r Ref) bool {
	switch r.Form {
	case FormFile, FormGit:
	default:
		return false
	}
	return path.Base(path.Dir(filepath.ToSlash(filepath.Clean(r.Path)))) == templatesDir
}

// meantTemplateSchema returns the template schema that schema is probably a misspelling of: one
// that differs from it only in case and separators ('.', '-', '_', spaces), or by at most two
// edits (insertion, deletion, substitution, transposition of neighbours), in the schema's own
// form (olm.semver) or the other one (olm.template.semver, olm.basic).
func meantTemplateSchema(schema string) (string, bool) {
	if schema == "" {
		return "", false
	}
	lower, squeezed := strings.ToLower(schema), squeeze(schema)
	for _, t := range fbc.TemplateSchemas {
		kind := t[strings.LastIndexByte(t, '.')+1:]
		for _, form := range []string{"olm.template." + kind, "olm." + kind} {
			if squeezed == squeeze(form) || editDistance(lower, form) <= 2 {
				return t, true
			}
		}
	}
	return "", false
}

// squeeze lowercases s and drops its separators.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '-', '_', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// editDistance is the optimal string alignment distance of a and b (Damerau-Levenshtein with each
// substring edited once), counted in bytes. Strings whose lengths differ by more than 3 are taken
// to be 4 apart: its callers only ask whether the distance is at most 2.
func editDistance(a, b string) int {
	if d := len(a) - len(b); d > 3 || d < -3 {
		return 4
	}
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// MeantTemplateSchema returns the template schema that schema is probably a misspelling of (as
// validate reads a catalog file's first document): olm.semverr is olm.semver, OLM.Template.Basic
// is olm.template.basic. A schema that is a template schema already is not a misspelling.
func MeantTemplateSchema(schema string) (string, bool) {
	for _, t := range fbc.TemplateSchemas {
		if schema == t {
			return "", false
		}
	}
	return meantTemplateSchema(schema)
}
