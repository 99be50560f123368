package fbcbackend

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// topLevelKind reads the "kind" field of a JSON object stopping there (manifests have sorted keys:
// apiVersion, kind, ...), so large objects are not scanned whole. Anything that is not an object
// with a string kind gives "".
func topLevelKind(obj string) string {
	if kind, ok := leadingKind(obj); ok {
		return kind
	}
	return kindByDecoder(obj)
}

func kindByDecoder(obj string) string {
	dec := json.NewDecoder(strings.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return ""
		}
		if key == "kind" {
			var kind string
			if json.Unmarshal(value, &kind) != nil {
				return ""
			}
			return kind
		}
	}
	return ""
}

// leadingKind is topLevelKind for objects whose fields up to kind are plain strings without
// escapes or control characters, as in {"apiVersion":"v1","kind":"X",...}; ok is false for any
// other shape. It allocates nothing.
func leadingKind(obj string) (kind string, ok bool) {
	i := skipSpaceString(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return "", false
	}
	for {
		key, next, ok := plainString(obj, skipSpaceString(obj, i+1))
		if !ok {
			return "", false
		}
		i = skipSpaceString(obj, next)
		if i >= len(obj) || obj[i] != ':' {
			return "", false
		}
		value, next, ok := plainString(obj, skipSpaceString(obj, i+1))
		if !ok {
			return "", false
		}
		if key == "kind" {
			return value, utf8.ValidString(value) // the decoder would replace invalid bytes
		}
		i = skipSpaceString(obj, next)
		if i >= len(obj) || obj[i] != ',' {
			return "", false
		}
	}
}

func skipSpaceString(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the JSON string at s[i] if it has no escapes and no control characters.
func plainString(s string, i int) (str string, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	end := strings.IndexByte(s[i+1:], '"')
	if end < 0 {
		return "", 0, false
	}
	str = s[i+1 : i+1+end]
	for j := 0; j < len(str); j++ {
		if str[j] < 0x20 || str[j] == '\\' {
			return "", 0, false
		}
	}
	return str, i + end + 2, true
}
