package bundledir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// DependenciesFile is a metadata file as opm reads it when it looks for a bundle's dependencies:
// the serialized form only, entry by entry, with where each entry is. What the entries mean (what
// opm renders for them) is checkDependencies' business.
type DependenciesFile struct {
	Entries []DependencyEntry
	// Line is the line of the dependencies key (0 when not found).
	Line int
	// TopLevel holds the document's other top-level keys with their lines (0 when not found):
	// a value: dedented out of its entry ends up here.
	TopLevel map[string]int
	// LaterDocument is the line of a dependencies key in a YAML document after the first, which
	// opm never reads (0 when there is none).
	LaterDocument int
}

// DependencyEntry is one entry of a dependencies file, as written.
type DependencyEntry struct {
	// Line is the 1-based line of the entry (its "- "), or of the dependencies key when the entries
	// cannot be told apart (JSON, flow style); 0 when unknown.
	Line int
	// Type is the entry's type ("" when it has none).
	Type string
	// Value is the entry's value as JSON, as opm keeps it: nil when the entry has no value key,
	// null when "value:" is empty (as when the fields meant for it are indented beside it).
	Value json.RawMessage
	// OtherKeys are the entry's keys besides type and value, sorted: opm ignores them.
	OtherKeys []string
}

// ParseDependencies reads a metadata file the way opm v1.72 does when it looks for dependencies
// (operator-registry pkg/registry: bundleParser.addMetadata decodes every metadata file into a
// DependenciesFile with decodeFileFS, that is apimachinery's YAMLOrJSONDecoder): only the first
// YAML document (blank lines and comments before a "---" are no document), or the first JSON
// value when the file starts with "{"; decoded without strictness (sigs.k8s.io/yaml, then
// encoding/json), so unknown keys are dropped and an empty value gives a null value. An error
// means opm cannot decode the file as a dependencies file: it then ignores all of it, silently.
func ParseDependencies(data []byte) (*DependenciesFile, error) {
	var typed struct {
		Dependencies []struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"dependencies"`
	}
	var generic struct {
		Dependencies []map[string]json.RawMessage `json:"dependencies"`
	}
	var top map[string]json.RawMessage
	out := &DependenciesFile{TopLevel: map[string]int{}}
	var text []byte // the part of the file opm reads, for line numbers
	first := 1      // its first line in the file
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); bytes.HasPrefix(trimmed, []byte("{")) {
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&typed); err != nil {
			return nil, fmt.Errorf("not a dependencies file: %v", err)
		}
		_ = json.NewDecoder(bytes.NewReader(data)).Decode(&generic)
		_ = json.NewDecoder(bytes.NewReader(data)).Decode(&top)
		text = data
	} else {
		docs := splitYAMLDocuments(data)
		i := 0
		for i < len(docs) && commentsOnly(docs[i].text) {
			i++
		}
		if i == len(docs) {
			return out, nil // no document at all
		}
		doc := docs[i]
		if err := yaml.Unmarshal(doc.text, &typed); err != nil {
			return nil, lineShift(err, doc.line)
		}
		if j, err := yaml.YAMLToJSON(doc.text); err == nil {
			_ = json.Unmarshal(j, &generic)
			_ = json.Unmarshal(j, &top)
		}
		text, first = doc.text, doc.line
		for _, later := range docs[i+1:] {
			if n := topLevelKeyLine(later.text, "dependencies"); n > 0 && out.LaterDocument == 0 {
				out.LaterDocument = n + later.line - 1
			}
		}
	}
	keyLine, items := entryLines(text)
	if keyLine > 0 {
		out.Line = keyLine + first - 1
	}
	keyLines := topLevelKeys(text)
	for k := range top {
		if k != "dependencies" {
			line := keyLines[k]
			if line > 0 {
				line += first - 1
			}
			out.TopLevel[k] = line
		}
	}
	for i, d := range typed.Dependencies {
		e := DependencyEntry{Type: d.Type, Value: d.Value, Line: out.Line}
		if len(items) == len(typed.Dependencies) {
			e.Line = items[i] + first - 1
		}
		if i < len(generic.Dependencies) {
			for k := range generic.Dependencies[i] {
				if !strings.EqualFold(k, "type") && !strings.EqualFold(k, "value") {
					e.OtherKeys = append(e.OtherKeys, k)
				}
			}
			sort.Strings(e.OtherKeys)
		}
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

// commentsOnly: text has nothing but blank lines and comments.
func commentsOnly(text []byte) bool {
	for _, l := range strings.Split(string(text), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

var jsonDependenciesKey = regexp.MustCompile(`"dependencies"\s*:`)

// topLevelKeyLine is the 1-based line of key at the top level of a block-style YAML document
// (at column 0, possibly quoted), 0 when there is none.
func topLevelKeyLine(text []byte, key string) int {
	return topLevelKeys(text)[key]
}

// topLevelKeys maps each key written at column 0 of a block-style YAML document ("key:", possibly
// quoted) to the 1-based line where it first appears.
func topLevelKeys(text []byte) map[string]int {
	keys := map[string]int{}
	for i, l := range strings.Split(string(text), "\n") {
		if l == "" || strings.ContainsRune(" \t#-{[", rune(l[0])) {
			continue
		}
		key, rest := l, ""
		if q := l[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(l[1:], q)
			if end < 0 {
				continue
			}
			key, rest = l[1:end+1], l[end+2:]
		} else if c := strings.Index(l, ":"); c >= 0 {
			key, rest = strings.TrimRight(l[:c], " \t"), l[c:]
		}
		if strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") {
			if _, seen := keys[key]; !seen {
				keys[key] = i + 1
			}
		}
	}
	return keys
}

// entryLines finds the line of the dependencies key and, for a block sequence under it, the line
// of each of its items (lines of text, from 1). It reads lines, not YAML: a caller that finds as
// many items as the decoder found entries can trust them, and otherwise falls back on the key's
// line.
func entryLines(text []byte) (keyLine int, items []int) {
	lines := strings.Split(string(text), "\n")
	keyLine = topLevelKeyLine(text, "dependencies")
	if keyLine == 0 {
		if loc := jsonDependenciesKey.FindIndex(text); loc != nil {
			return bytes.Count(text[:loc[0]], []byte("\n")) + 1, nil
		}
		return 0, nil
	}
	_, after, _ := strings.Cut(lines[keyLine-1], ":")
	if after = stripComment(after); after != "" {
		return keyLine, nil // flow style: [...] on the key's line
	}
	indent := -1
	for i := keyLine; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		body := strings.TrimLeft(l, " ")
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		n := len(l) - len(body)
		isItem := body == "-" || strings.HasPrefix(body, "- ")
		switch {
		case indent < 0 && !isItem:
			return keyLine, nil
		case indent < 0:
			indent = n
		case n < indent, n == indent && !isItem:
			return keyLine, items
		case n > indent:
			continue
		}
		items = append(items, i+1)
	}
	return keyLine, items
}

// stripComment drops a YAML comment (a "#" at the start or after a space) and surrounding spaces.
func stripComment(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
