package fbc

import (
	"errors"
	"fmt"
	"strings"
)

// Kinds of load problems. A *LoadError wraps one of them (or an I/O error from the os package), so
// callers can tell them apart with errors.Is.
var (
	// ErrSyntax: the text is not valid JSON or YAML.
	ErrSyntax = errors.New("syntax error")
	// ErrNotCatalogData: the file is not JSON or YAML text at all (binary content).
	ErrNotCatalogData = errors.New("not JSON or YAML")
	// ErrBlobTooLarge: one blob (JSON value or YAML document) is larger than Loader.MaxBlobSize.
	ErrBlobTooLarge = errors.New("blob too large")
	// ErrNotObject: a blob is an array, string, number, boolean or null instead of an object.
	ErrNotObject = errors.New("blob is not an object")
	// ErrMissingField: a field the loader needs (schema; name and package of the core schemas) is absent or empty.
	ErrMissingField = errors.New("missing field")
	// ErrBadField: a field has the wrong JSON type for its schema.
	ErrBadField = errors.New("bad field")
	// ErrNotRegularFile: a path in the catalog is a device, socket, pipe, symlink to a directory, or a
	// symlink leading out of the catalog.
	ErrNotRegularFile = errors.New("not a regular file")
)

// LoadError is one problem found while loading a catalog: where it is, which blob (when the blob got
// far enough to be named), and what is wrong.
type LoadError struct {
	Loc     Location
	Schema  string // schema of the blob, "" when not known
	Package string // package the blob belongs to, "" when not known
	Name    string // name of the blob, "" when not known or the schema has none
	Err     error
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.Loc.String())
	b.WriteString(": ")
	if blob := e.blobDescription(); blob != "" {
		b.WriteString(blob)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("unknown error")
	}
	return b.String()
}

func (e *LoadError) Unwrap() error { return e.Err }

func (e *LoadError) blobDescription() string {
	switch {
	case e.Schema == "":
		return ""
	case e.Schema == SchemaPackage && e.Name != "":
		return fmt.Sprintf("%s %q", e.Schema, e.Name)
	case e.Name != "" && e.Package != "":
		return fmt.Sprintf("%s %q of package %q", e.Schema, e.Name, e.Package)
	case e.Name != "":
		return fmt.Sprintf("%s %q", e.Schema, e.Name)
	case e.Package != "":
		return fmt.Sprintf("%s blob of package %q", e.Schema, e.Package)
	default:
		return e.Schema + " blob"
	}
}

// DefaultMaxErrors is how many problems a load keeps before it only counts them.
const DefaultMaxErrors = 100

// LoadErrors is every problem a load met, in the order met. The loaders return it, never empty, when
// the input had problems; loading went on past each problem that left the rest of the input readable.
type LoadErrors struct {
	Errs    []*LoadError
	Omitted int // problems found after the first Loader.MaxErrors, counted but not kept
}

func (e *LoadErrors) Error() string {
	lines := make([]string, 0, len(e.Errs)+1)
	for _, err := range e.Errs {
		lines = append(lines, err.Error())
	}
	if e.Omitted > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more problems", e.Omitted))
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the kept errors to errors.Is and errors.As.
func (e *LoadErrors) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, err := range e.Errs {
		out[i] = err
	}
	return out
}

// errorList gathers load errors up to a limit.
type errorList struct {
	max  int
	errs LoadErrors
}

func (l *errorList) add(e *LoadError) {
	if len(l.errs.Errs) >= l.max {
		l.errs.Omitted++
		return
	}
	l.errs.Errs = append(l.errs.Errs, e)
}

func (l *errorList) empty() bool { return len(l.errs.Errs) == 0 && l.errs.Omitted == 0 }

// err returns the gathered errors, or nil when there were none.
func (l *errorList) err() error {
	if l.empty() {
		return nil
	}
	out := l.errs
	return &out
}

// problem is an error message of a known kind; the kind shows through errors.Is but not in the text.
type problem struct {
	kind  error
	msg   string
	cause error // underlying error, if any
}

func (p *problem) Error() string { return p.msg }

func (p *problem) Unwrap() []error {
	if p.cause == nil {
		return []error{p.kind}
	}
	return []error{p.kind, p.cause}
}

func newProblem(kind error, format string, args ...any) *problem {
	return &problem{kind: kind, msg: fmt.Sprintf(format, args...)}
}

func locErr(loc Location, kind error, format string, args ...any) *LoadError {
	return &LoadError{Loc: loc, Err: newProblem(kind, format, args...)}
}
