package model

import (
	"errors"
	"fmt"

	"github.com/olmcat/olmcat/fbc"
)

// loadRules names the rule of each kind of load problem, with a generic fix hint (the loader's own
// message usually says more).
var loadRules = []struct {
	kind error
	rule string
	hint string
}{
	{fbc.ErrSyntax, "load-syntax", "fix the JSON or YAML syntax at this line (is the file truncated?)"},
	{fbc.ErrNotCatalogData, "load-not-catalog-data", "remove the file from the catalog or list it in a .indexignore file"},
	{fbc.ErrBlobTooLarge, "load-blob-too-large", "split the blob, or check that the file is not corrupt"},
	{fbc.ErrNotObject, "load-not-object", "every blob must be a JSON object (YAML mapping) with a schema field"},
	{fbc.ErrMissingField, "load-missing-field", "add the missing field to the blob"},
	{fbc.ErrBadField, "load-bad-field", "give the field the type its schema requires"},
	{fbc.ErrNotRegularFile, "load-not-regular-file", "replace the entry with a regular file inside the catalog, or remove it"},
}

// LoadIssues turns the problems of a load (*fbc.LoadErrors or *fbc.LoadError, as fbc.Walk returns
// them) into located error issues, so that a report shows them with the validation findings. Any
// other error is returned unchanged as the second result: it is not a problem of the input.
func LoadIssues(err error) (Issues, error) {
	if err == nil {
		return nil, nil
	}
	var list *fbc.LoadErrors
	if errors.As(err, &list) {
		issues := make(Issues, 0, len(list.Errs)+1)
		for _, e := range list.Errs {
			issues = append(issues, loadIssue(e))
		}
		if list.Omitted > 0 {
			issues = append(issues, &Issue{Severity: Error, Rule: "load-more", Hint: "fix the problems above and validate again",
				Message: fmt.Sprintf("... and %d more load problems", list.Omitted)})
		}
		return issues, nil
	}
	var one *fbc.LoadError
	if errors.As(err, &one) {
		return Issues{loadIssue(one)}, nil
	}
	return nil, err
}

func loadIssue(e *fbc.LoadError) *Issue {
	rule, hint := "load-io", "check that the file is readable"
	for _, r := range loadRules {
		if errors.Is(e, r.kind) {
			rule, hint = r.rule, r.hint
			break
		}
	}
	var channel, bundle string
	switch e.Schema {
	case fbc.SchemaChannel:
		channel = e.Name
	case fbc.SchemaBundle:
		bundle = e.Name
	}
	pkg := e.Package
	if e.Schema == fbc.SchemaPackage {
		pkg = e.Name
	}
	msg := "unknown error"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return newIssue(Error, rule, e.Loc, pkg, channel, bundle, hint, "%s", msg)
}
