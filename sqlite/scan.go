package sqlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// A small JSON scanner for the hot path of reading bundle columns: finding where each manifest ends
// and what its top-level "kind" is, without decoding the manifest. Validation is left to
// encoding/json (json.Valid), so malformed input is still rejected.

var errTruncatedJSON = errors.New("truncated JSON")

// valueEnd returns the index just past the JSON value starting at b[0] (an object, array, string or
// scalar). It tracks only strings and nesting; it does not validate.
func valueEnd(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errTruncatedJSON
	}
	switch b[0] {
	case '"':
		return stringEnd(b)
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				n, err := stringEnd(b[i:])
				if err != nil {
					return 0, err
				}
				i += n - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errTruncatedJSON
	}
	for i, c := range b {
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i, nil
		}
	}
	return len(b), nil
}

// stringEnd returns the index just past the JSON string starting at b[0] == '"'.
func stringEnd(b []byte) (int, error) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errTruncatedJSON
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// foldFields returns the values of every member of a valid JSON object whose key matches key the
// way encoding/json matches struct fields (exactly or case-insensitively), in order. Decoding them in
// that order into the same value gives what json.Unmarshal into a struct with that field gives.
func foldFields(obj []byte, key string) [][]byte {
	var out [][]byte
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return out
		}
		n, err := stringEnd(obj[i:])
		if err != nil {
			return out
		}
		rawKey := obj[i : i+n]
		i = skipSpace(obj, i+n)
		if i >= len(obj) || obj[i] != ':' {
			return out
		}
		i = skipSpace(obj, i+1)
		m, err := valueEnd(obj[i:])
		if err != nil {
			return out
		}
		if keyFolds(rawKey, key) {
			out = append(out, obj[i:i+m])
		}
		i = skipSpace(obj, i+m)
		if i >= len(obj) || obj[i] != ',' {
			return out
		}
		i++
	}
}

// keyFolds compares a raw JSON string (with quotes) to a key as encoding/json matches field names.
func keyFolds(raw []byte, key string) bool {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return bytes.EqualFold(inner, []byte(key))
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && strings.EqualFold(s, key)
}
