// Package jsonscan finds where JSON values end without decoding them: the hot paths that cut a
// bundle's manifests or a CSV's fields out of JSON (the SQLite codec, csvmeta) share it.
// ValueEnd tracks only strings and nesting and validates nothing; ValidValueEnd also checks the
// value as encoding/json.Valid does, in one pass several times faster.
package jsonscan

import "encoding/binary"

// ValueEnd returns the index just past the JSON value starting at b[0] (an object, array, string
// or scalar); ok is false when the value is truncated.
func ValueEnd(b []byte) (n int, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case '"':
		return StringEnd(b)
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				n, ok := StringEnd(b[i:])
				if !ok {
					return 0, false
				}
				i += n - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	for i, c := range b {
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i, true
		}
	}
	return len(b), true
}

// StringEnd returns the index just past the JSON string starting at b[0] == '"'; ok is false when
// it is not closed.
func StringEnd(b []byte) (n int, ok bool) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
// Indentation goes a word at a time.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ':
			if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == lowBits*' ' {
				i += 8
				continue
			}
			i++
		case '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
