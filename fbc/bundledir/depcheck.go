package bundledir

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc/property"
)

// depFields are the value fields of the dependency types opm decodes, and what opm renders for
// a value that holds none of them.
var depFields = map[string]struct {
	fields []string
	empty  string
}{
	property.TypePackage: {[]string{"packageName", "version"}, "an olm.package.required with an empty packageName and versionRange"},
	property.TypeGVK:     {[]string{"group", "version", "kind"}, "an olm.gvk.required with an empty group, kind and version"},
}

// checkDependencies says what opm v1.72 makes of each entry of the dependencies file when it
// renders the bundle (operator-registry pkg/registry ObjectsAndPropertiesFromBundle):
//   - olm.gvk and olm.package values are decoded (encoding/json, into GVK and Package): a missing
//     value or one of the wrong shape fails the whole render, an error here; a null value (an
//     empty "value:") or a map with none of the fields decodes to the zero value, which opm
//     renders as an olm.gvk.required or olm.package.required with empty fields: a warning;
//   - every other type, and an entry with no type, is copied as a property as it is (a missing or
//     null value becomes "value": null): a warning when it has no type or no value;
//   - keys beside type and value are dropped: a warning when they are fields of the value.
//
// file names the dependencies file in messages.
func checkDependencies(file string, df *DependenciesFile) ([]Warning, error) {
	var warnings []Warning
	for i, e := range df.Entries {
		what := fmt.Sprintf("dependency %d (type %s)", i+1, e.Type)
		spec, decoded := depFields[e.Type]
		switch {
		case e.Type == "":
			warnings = append(warnings, warnf(file, e.Line, "dependency %d has no type (%s); opm keeps it as a property with an empty type, and so does olmcat. Give it a type.",
				i+1, describeKeys(e)))
		case !decoded && isNull(e.Value):
			warnings = append(warnings, warnf(file, e.Line, "%s has no value (%s); opm keeps it as a property of that type with a null value, and so does olmcat. %s",
				what, noValueReason(e, e.OtherKeys, df), fixHint(e, e.OtherKeys, df)))
		case !decoded:
		case e.Value == nil:
			return warnings, fmt.Errorf("%s: %s has no value (%s); opm cannot render the bundle (its value is not JSON), nor can olmcat. Indent %s under value:",
				location(file, e.Line), what, noValueReason(e, spec.fields, df), joinAnd(spec.fields, "and"))
		default:
			zero, err := decodesToZero(e)
			if err != nil {
				return warnings, fmt.Errorf("%s: %s: value cannot be read as %s (%v); opm cannot render the bundle, nor can olmcat",
					location(file, e.Line), what, joinAnd(spec.fields, "and"), err)
			}
			moved := intersect(e.OtherKeys, spec.fields)
			switch {
			case zero:
				warnings = append(warnings, warnf(file, e.Line, "%s has no readable value (%s); opm renders it as %s, and so does olmcat. %s",
					what, noValueReason(e, spec.fields, df), spec.empty, fixHint(e, spec.fields, df)))
			case len(moved) > 0:
				warnings = append(warnings, warnf(file, e.Line, "%s has %s beside value:, not under it; opm ignores %s, and so does olmcat. Fix the indentation.",
					what, joinAnd(moved, "and"), pronoun(moved)))
			}
		}
	}
	return warnings, nil
}

func decodesToZero(e DependencyEntry) (bool, error) {
	if e.Type == property.TypeGVK {
		var v property.GVK
		err := json.Unmarshal(e.Value, &v)
		return v == property.GVK{}, err
	}
	var v property.Package // opm reads only packageName and version of a package dependency
	err := json.Unmarshal(e.Value, &v)
	return v.PackageName == "" && v.Version == "", err
}

func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// noValueReason says why an entry's value holds nothing readable.
func noValueReason(e DependencyEntry, fields []string, df *DependenciesFile) string {
	if moved := intersect(e.OtherKeys, fields); len(moved) > 0 {
		return fmt.Sprintf("%s %s not under value:", joinAnd(moved, "and"), verb(moved))
	}
	if len(e.OtherKeys) > 0 && e.Value == nil {
		return fmt.Sprintf("%s %s beside type, and there is no value:", joinAnd(e.OtherKeys, "and"), verb(e.OtherKeys))
	}
	if e.Value == nil {
		if line, ok := df.TopLevel["value"]; ok {
			if line > 0 {
				return fmt.Sprintf("the value: at line %d is at the top level of the file, outside the entry", line)
			}
			return "value: is at the top level of the file, outside the entry"
		}
		return "the entry has no value: key"
	}
	if string(e.Value) == "null" {
		return "value: is empty"
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(e.Value, &m) == nil {
		if len(m) == 0 {
			return "value: is an empty map"
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Sprintf("value: has %s, not %s", joinAnd(keys, "and"), joinAnd(fields, "or"))
	}
	return "value: is not a map"
}

// fixHint says how to fix an entry whose value opm cannot read.
func fixHint(e DependencyEntry, fields []string, df *DependenciesFile) string {
	if _, top := df.TopLevel["value"]; len(intersect(e.OtherKeys, fields)) > 0 || (top && e.Value == nil) {
		return "Fix the indentation."
	}
	if len(fields) > 0 {
		return fmt.Sprintf("Put %s under value:.", joinAnd(fields, "and"))
	}
	return "Give it a value."
}

func describeKeys(e DependencyEntry) string {
	keys := slices.Clone(e.OtherKeys)
	if !isNull(e.Value) {
		keys = append([]string{"value"}, keys...)
	}
	if len(keys) == 0 {
		return "the entry is empty"
	}
	return "it has " + joinAnd(keys, "and")
}

func location(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

func intersect(keys, fields []string) []string {
	var out []string
	for _, k := range keys {
		if slices.Contains(fields, k) {
			out = append(out, k)
		}
	}
	return out
}

// joinAnd writes a, b and c (or a, b or c).
func joinAnd(words []string, conj string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

func verb(words []string) string {
	if len(words) == 1 {
		return "is"
	}
	return "are"
}

func pronoun(words []string) string {
	if len(words) == 1 {
		return "it"
	}
	return "them"
}
