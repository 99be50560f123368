package model

import (
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// Severity says whether an issue makes a catalog invalid.
type Severity string

const (
	// Error is a problem opm also rejects: the catalog cannot be served.
	Error Severity = "error"
	// Warning is a problem opm accepts but that hurts users (e.g. a cycle through skips).
	Warning Severity = "warning"
	// Info is a fact worth knowing that may be fine where the catalog is used (e.g. a requirement
	// another catalog of the cluster may provide). It never fails validation, not even with Strict.
	Info Severity = "info"
)

// Issue is one problem found while building or validating a model, located as precisely as the
// input allows.
type Issue struct {
	Severity Severity     `json:"severity"`
	Rule     string       `json:"rule"` // stable identifier, e.g. "duplicate-bundle"
	Loc      fbc.Location `json:"-"`
	File     string       `json:"file,omitempty"`
	Line     int          `json:"line,omitempty"`
	Package  string       `json:"package,omitempty"`
	Channel  string       `json:"channel,omitempty"`
	Bundle   string       `json:"bundle,omitempty"`
	Message  string       `json:"message"`
	Hint     string       `json:"hint,omitempty"`
	// OLM lists the generations of OLM the finding holds for (see ForOLM); empty when it does not
	// depend on the generation.
	OLM []Generation `json:"olm,omitempty"`
}

func newIssue(sev Severity, rule string, loc fbc.Location, pkg, ch, bundle, hint, format string, args ...any) *Issue {
	return &Issue{
		Severity: sev, Rule: rule, Loc: loc, File: loc.File, Line: loc.Line,
		Package: pkg, Channel: ch, Bundle: bundle,
		Message: fmt.Sprintf(format, args...), Hint: hint,
	}
}

// Error formats the issue on one line: location, what, where, and how to fix it. The generations
// an issue holds for are not added: its message names them ("OLM v0 offers ...").
func (i *Issue) Error() string {
	var b strings.Builder
	if i.File != "" {
		b.WriteString(fbc.Location{File: i.File, Line: i.Line}.String())
		b.WriteString(": ")
	}
	b.WriteString(string(i.Severity))
	b.WriteString(": ")
	var where []string
	if i.Package != "" {
		where = append(where, "package "+quote(i.Package))
	}
	if i.Channel != "" {
		where = append(where, "channel "+quote(i.Channel))
	}
	if i.Bundle != "" {
		where = append(where, "bundle "+quote(i.Bundle))
	}
	if len(where) > 0 {
		b.WriteString(strings.Join(where, ", "))
		b.WriteString(": ")
	}
	b.WriteString(i.Message)
	if i.Hint != "" {
		b.WriteString(" (fix: ")
		b.WriteString(i.Hint)
		b.WriteString(")")
	}
	return b.String()
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// Issues is a list of issues; it is an error when it holds at least one Error.
type Issues []*Issue

// Errors returns only the issues of severity Error.
func (is Issues) Errors() Issues {
	var out Issues
	for _, i := range is {
		if i.Severity == Error {
			out = append(out, i)
		}
	}
	return out
}

// Err returns nil when there is no Error-severity issue, else an error listing them all.
func (is Issues) Err() error {
	errs := is.Errors()
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func (is Issues) Error() string {
	lines := make([]string, len(is))
	for n, i := range is {
		lines[n] = i.Error()
	}
	return strings.Join(lines, "\n")
}
