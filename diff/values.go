package diff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/olmcat/olmcat/fbc"
)

// canonicalJSON re-encodes a JSON value with sorted keys and no insignificant whitespace, so that two
// values compare equal exactly when they mean the same. Text that is not JSON is returned as it is.
func canonicalJSON(raw []byte) string {
	v, err := decodeJSON(raw)
	if err != nil {
		return string(bytes.TrimSpace(raw))
	}
	return encodeCanonical(v)
}

// decodeJSON decodes keeping numbers as written (1.0 and 1 stay different, large integers exact).
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func encodeCanonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxValueLen is how long an old/new value may be in a finding before it is summarized.
const maxValueLen = 200

// shortValue keeps short values as they are and summarizes long ones by their start, length and
// digest, so findings stay readable and a reviewer can still tell two long values apart.
func shortValue(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	head := s[:120]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	return fmt.Sprintf("%s… (%d bytes, sha256:%s)", head, len(s), hex.EncodeToString(sum[:6]))
}

// multisetDiff returns what is in a and not b and what is in b and not a, counting repeats, sorted.
func multisetDiff(a, b []string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for s, c := range count {
		for ; c > 0; c-- {
			onlyA = append(onlyA, s)
		}
		for ; c < 0; c++ {
			onlyB = append(onlyB, s)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

// extraDiff reports unknown fields (kept by the loader) that differ between two blobs or objects.
func extraDiff(mk func(Kind) Finding, what string, old, new fbc.Extra) []Finding {
	var out []Finding
	for _, k := range unionKeys(old, new) {
		o, n := old[k], new[k]
		var oc, nc string
		if o != nil {
			oc = canonicalJSON(o)
		}
		if n != nil {
			nc = canonicalJSON(n)
		}
		if oc == nc {
			continue
		}
		f := mk(UnknownFieldChanged)
		f.Field = k
		f.Old, f.New = shortValue(oc), shortValue(nc)
		f.Message = fmt.Sprintf("%s field %q changed", what, k)
		out = append(out, f)
	}
	return out
}

func extraEqual(a, b fbc.Extra) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func propertiesEqual(a, b []fbc.Property) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || !fbc.EqualJSON(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// changeKinds are the finding kinds for values of one sort appearing, disappearing or changing.
type changeKinds struct{ added, removed, changed Kind }

var propertyKinds = changeKinds{PropertyAdded, PropertyRemoved, PropertyChanged}

// compareValues compares values of one sort (e.g. the properties of one type) as multisets of
// canonical values: one value on each side that differ is "changed" (when the sort has a changed
// kind), anything else is values added and removed. label names the sort in messages.
func compareValues(mk func(Kind) Finding, field string, kinds changeKinds, label string, old, new []string) []Finding {
	onlyOld, onlyNew := multisetDiff(old, new)
	if len(onlyOld) == 0 && len(onlyNew) == 0 {
		return nil
	}
	if len(old) == 1 && len(new) == 1 && kinds.changed != "" {
		f := mk(kinds.changed)
		f.Field = field
		f.Old, f.New = shortValue(old[0]), shortValue(new[0])
		f.Message = label + " changed"
		return []Finding{f}
	}
	var out []Finding
	for _, v := range onlyOld {
		f := mk(kinds.removed)
		f.Field = field
		f.Old = shortValue(v)
		f.Message = label + " removed"
		out = append(out, f)
	}
	for _, v := range onlyNew {
		f := mk(kinds.added)
		f.Field = field
		f.New = shortValue(v)
		f.Message = label + " added"
		out = append(out, f)
	}
	return out
}

// propertiesByType groups canonical property values by type, and returns the types sorted.
func propertiesByType(props []fbc.Property) map[string][]string {
	out := map[string][]string{}
	for _, p := range props {
		out[p.Type] = append(out[p.Type], canonicalJSON(p.Value))
	}
	return out
}

// compareGenericProperties compares properties type by type with no interpretation.
func compareGenericProperties(mk func(Kind) Finding, what string, old, new []fbc.Property) []Finding {
	if propertiesEqual(old, new) {
		return nil
	}
	ot, nt := propertiesByType(old), propertiesByType(new)
	var out []Finding
	for _, typ := range unionKeys(ot, nt) {
		out = append(out, compareValues(mk, typ, propertyKinds, what+" property "+typ, ot[typ], nt[typ])...)
	}
	return out
}

// descriptionChange says what happened to a description in a sentence, quoting as much of each
// text as a line of review holds: from the start, or around the first difference when that is
// further in (white space is collapsed: a description is Markdown over many lines).
func descriptionChange(old, new string) string {
	o, n := []rune(strings.Join(strings.Fields(old), " ")), []rune(strings.Join(strings.Fields(new), " "))
	switch {
	case len(n) == 0 && len(o) == 0:
		return "package description changed only in white space"
	case len(n) == 0:
		return fmt.Sprintf("package description removed (it was %s)", quoteBrief(o, 0))
	case len(o) == 0:
		return fmt.Sprintf("package description added: %s", quoteBrief(n, 0))
	}
	at := 0
	for at < len(o) && at < len(n) && o[at] == n[at] {
		at++
	}
	if at == len(o) && at == len(n) {
		return "package description changed only in white space"
	}
	return fmt.Sprintf("package description changed from %s to %s", quoteBrief(o, at), quoteBrief(n, at))
}

// briefRunes is how much of a text quoteBrief quotes; briefContext how much of that comes before
// the first difference when the quote does not start at the beginning.
const (
	briefRunes   = 60
	briefContext = 20
)

// quoteBrief quotes about briefRunes of r: from its start, or from briefContext before the rune
// at when the start would not show it, cut between words where one ends near the cut; "…" marks
// text left out.
func quoteBrief(r []rune, at int) string {
	start := 0
	if at > briefRunes-briefContext {
		start = min(at-briefContext, max(len(r)-briefRunes, 0))
	}
	end := min(len(r), start+briefRunes)
	const near = 12 // how far a cut moves to fall between words
	if end < len(r) {
		for i := end; i > end-near && i > start; i-- {
			if r[i] == ' ' {
				end = i
				break
			}
		}
	}
	if start > 0 {
		for i := start; i < start+near && i < end && i < at; i++ {
			if r[i-1] == ' ' {
				start = i
				break
			}
		}
	}
	out := strings.TrimSpace(string(r[start:end]))
	if start > 0 {
		out = "…" + out
	}
	if end < len(r) {
		out += "…"
	}
	return `"` + out + `"`
}
