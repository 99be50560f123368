package fbcbackend

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// A minimal reader of JSON that the catalog loader has already checked: it hands out the raw
// spans of an object's fields or an array's elements without decoding or copying them, so that
// converting a bundle scans its (mostly base64) bytes once instead of several times. Malformed
// input gives errMalformed, never a panic.

var errMalformed = errors.New("malformed JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errMalformed
		}
		end := j + k
		backslashes := 0
		for p := end - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return end + 1, nil
		}
		j = end + 1
	}
}

// skipValue returns the index just past the value starting at b[i] (after white space).
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformed
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errMalformed
	default:
		for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[i])) {
			i++
		}
		return i, nil
	}
}

// eachField calls fn with every key (still quoted) and raw value of the object in b.
func eachField(b []byte, fn func(key, value []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errMalformed
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		keyEnd, err := skipString(b, i)
		if err != nil || b[i] != '"' {
			return errMalformed
		}
		key := b[i:keyEnd]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return errMalformed
		}
		i = skipSpace(b, i+1)
		end, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(key, b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return errMalformed
	}
	return nil
}

// eachElement calls fn with every raw element of the array in b; null is an empty array.
func eachElement(b []byte, fn func(elem []byte) error) error {
	i := skipSpace(b, 0)
	if bytes.HasPrefix(b[i:], []byte("null")) {
		return nil
	}
	if i >= len(b) || b[i] != '[' {
		return errMalformed
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		end, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return errMalformed
	}
	return nil
}

// keyIs matches a quoted key the way encoding/json matches struct fields: case-insensitively.
func keyIs(quoted []byte, name string) bool {
	if len(quoted) >= 2 && bytes.IndexByte(quoted, '\\') < 0 {
		return bytes.EqualFold(quoted[1:len(quoted)-1], []byte(name))
	}
	var s string
	return json.Unmarshal(quoted, &s) == nil && bytes.EqualFold([]byte(s), []byte(name))
}

// stringBytes decodes a JSON string value (null gives nil); without escapes it is a sub-slice.
func stringBytes(raw []byte) ([]byte, error) {
	if bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if len(raw) < 2 || raw[0] != '"' {
		return nil, errors.New("not a string")
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}
