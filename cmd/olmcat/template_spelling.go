package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/source"
)

// misspelledTemplateSchema says, in validate's words, that the template's first document has a
// schema that is a template schema misspelled (olm.semverr): "" when it is not that.
func misspelledTemplateSchema(what string, data []byte) string {
	doc, err := template.FirstDocument(data)
	if err != nil {
		return ""
	}
	var s struct {
		Schema string `json:"schema"`
	}
	if json.Unmarshal(doc, &s) != nil || s.Schema == "" {
		return ""
	}
	meant, ok := source.MeantTemplateSchema(s.Schema)
	if !ok {
		return ""
	}
	at := ""
	if line := schemaLine(data); line > 0 {
		at = fmt.Sprintf(" (line %d)", line)
	}
	return fmt.Sprintf("%s: bad catalog template: its first document has schema %q%s, which is no template schema: it is probably the template schema %s misspelled (write schema: %s)",
		what, s.Schema, at, meant, meant)
}

var schemaKey = regexp.MustCompile(`(?i)^\s*(- )?"?schema"?\s*:`)

// schemaLine is the line of the first schema key of a template, 0 when there is none on a line of
// its own (a one-line JSON document).
func schemaLine(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		if schemaKey.Match(line) {
			return i + 1
		}
	}
	return 0
}

// nearestWord is the word of words within two edits of w, "" when none is.
func nearestWord(w string, words []string) string {
	best, found := 3, ""
	for _, c := range words {
		if d := levenshtein(w, c); d < best {
			best, found = d, c
		}
	}
	return found
}
