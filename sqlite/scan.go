package sqlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// A small JSON scanner for the hot path of reading bundle columns: finding where each manifest ends
// and what its top-level "kind" is, without decoding the manifest. Validation is left to
// encoding/json (json.Valid), so malformed input is still rejected.

var errTruncatedJSON = errors.New("truncated JSON")

// valueEnd returns the index just past the JSON value starting at b[0] (an object, array, string or
// scalar). It tracks only strings and nesting; it does not validate.
func valueEnd(b []byte) (int, error) {
	n, ok := jsonscan.ValueEnd(b)
	if !ok {
		return 0, errTruncatedJSON
	}
	return n, nil
}

// foldFields returns the values of every member of a valid JSON object whose key matches key the
// way encoding/json matches struct fields (exactly or case-insensitively), in order. Decoding them in
// that order into the same value gives what json.Unmarshal into a struct with that field gives.
func foldFields(obj []byte, key string) [][]byte {
	var out [][]byte
	i := jsonscan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = jsonscan.SkipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return out
		}
		n, ok := jsonscan.StringEnd(obj[i:])
		if !ok {
			return out
		}
		rawKey := obj[i : i+n]
		i = jsonscan.SkipSpace(obj, i+n)
		if i >= len(obj) || obj[i] != ':' {
			return out
		}
		i = jsonscan.SkipSpace(obj, i+1)
		m, err := valueEnd(obj[i:])
		if err != nil {
			return out
		}
		if keyFolds(rawKey, key) {
			out = append(out, obj[i:i+m])
		}
		i = jsonscan.SkipSpace(obj, i+m)
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
