package crdsafety

import (
	"fmt"
	"strings"
)

// unhandledPrefix starts crdify's error for changes none of its validations handled
// (validations.ErrUnhandledChangesFound), followed by a go-cmp diff of the two property schemas.
const unhandledPrefix = "unhandled changes found"

// conciseUnhandledMessage shortens crdify's unhandled-changes error the way operator-controller's
// preflight does before reporting it (crdupgradesafety.conciseUnhandledMessage at df2c201d): the
// go-cmp diff becomes "field before -> after" for each top-level field whose removed ("-") and
// added ("+") lines differ, joined by "; " in the order the diff first names them. Values naming a
// JSONSchemaProps become "<complex value>", "v1." is dropped from type names, a missing side is
// "<empty>", and two sides that read the same after that but differ in their text get " (changed)".
func conciseUnhandledMessage(raw string) string {
	if !strings.Contains(raw, unhandledPrefix) {
		return raw
	}
	details := unhandledDetails(raw)
	if len(details) == 0 {
		return unhandledPrefix
	}
	return unhandledPrefix + " (" + strings.Join(details, "; ") + ")"
}

// sides is what the diff says of one field: the shown value and its raw text, before and after.
type sides struct {
	before, after       string
	beforeRaw, afterRaw string
}

func unhandledDetails(raw string) []string {
	fields := map[string]*sides{}
	var order []string
	for _, line := range strings.Split(raw, "\n") {
		line = strings.TrimSpace(line) // go-cmp indents with spaces or, at random, non-breaking spaces
		if len(line) < 2 || (line[0] != '-' && line[0] != '+') {
			continue
		}
		field, shown, text, ok := diffLineField(line[1:])
		if !ok {
			continue
		}
		s := fields[field]
		if s == nil {
			s = &sides{}
			fields[field] = s
			order = append(order, field)
		}
		if line[0] == '-' {
			s.before, s.beforeRaw = shown, text
		} else {
			s.after, s.afterRaw = shown, text
		}
	}
	var details []string
	for _, field := range order {
		s := fields[field]
		switch {
		case s.before == "" && s.after == "":
			continue
		case s.before == s.after && s.beforeRaw == s.afterRaw:
			continue
		}
		before, after := orEmpty(s.before), orEmpty(s.after)
		if s.before == s.after {
			after += " (changed)"
		}
		details = append(details, fmt.Sprintf("%s %s -> %s", field, before, after))
	}
	return details
}

// diffLineField reads "Field: value," (after the diff's sign): the field, the value as shown, and
// the value's text; ok is false for a line that names no field.
func diffLineField(fragment string) (field, shown, text string, ok bool) {
	s := strings.TrimSpace(fragment)
	s = strings.TrimSpace(strings.TrimPrefix(s, "\t"))
	s = strings.TrimSuffix(s, ",")
	name, value, found := strings.Cut(s, ":")
	if !found {
		return "", "", "", false
	}
	field, text = strings.TrimSpace(name), strings.TrimSpace(value)
	if field == "" {
		return "", "", "", false
	}
	return field, shownValue(text), text, true
}

func shownValue(v string) string {
	v = strings.TrimSpace(strings.TrimSuffix(v, ","))
	switch v {
	case "":
		return "<empty>"
	case `""`:
		return v
	}
	v = strings.ReplaceAll(v, "v1.", "")
	if strings.Contains(v, "JSONSchemaProps") {
		return "<complex value>"
	}
	return v
}

func orEmpty(s string) string {
	if s == "" {
		return "<empty>"
	}
	return s
}
