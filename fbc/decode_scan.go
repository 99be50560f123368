package fbc

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// jsonScanner walks JSON text in one pass without building anything, checking the grammar as it
// goes: whatever it accepts, encoding/json accepts too. It is the tokenizer of the fast blob
// decoders (decode_blob.go), which give up (return false) on anything unusual and leave it to the
// encoding/json based decoding, so the scanner needs no error messages of its own.
type jsonScanner struct {
	data []byte
	i    int
}

// maxSkipDepth bounds the nesting the scanner follows inside a skipped value; deeper text is left
// to encoding/json (whose own limit is 10000).
const maxSkipDepth = 1024

func (s *jsonScanner) space() {
	s.i = jsonscan.SkipSpace(s.data, s.i)
}

// next skips space and returns the next byte without consuming it (0 at the end).
func (s *jsonScanner) next() byte {
	s.space()
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

// consume skips space, then consumes c if it is the next byte.
func (s *jsonScanner) consume(c byte) bool {
	if s.next() == c {
		s.i++
		return true
	}
	return false
}

// atEnd reports whether only space is left.
func (s *jsonScanner) atEnd() bool {
	s.space()
	return s.i == len(s.data)
}

func (s *jsonScanner) literal(word string) bool {
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// null consumes a null literal if one comes next.
func (s *jsonScanner) null() bool {
	return s.next() == 'n' && s.literal("null")
}

// str scans the string starting at s.i and returns the bounds of its content (between the
// quotes) and whether it holds escapes. Escapes must be well formed and control characters
// absent, as JSON requires; invalid UTF-8 passes, as in encoding/json.
func (s *jsonScanner) str() (start, end int, escaped, ok bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return 0, 0, false, false
	}
	start = s.i + 1
	if end, escaped, ok = jsonscan.StringContentEnd(s.data, start); !ok {
		return 0, 0, false, false
	}
	s.i = end + 1
	return start, end, escaped, true
}

// key scans an object key and returns it. Keys with escapes or invalid UTF-8 (which encoding/json
// would rewrite) are refused.
func (s *jsonScanner) key() ([]byte, bool) {
	start, end, escaped, ok := s.str()
	if !ok || escaped {
		return nil, false
	}
	k := s.data[start:end]
	for _, c := range k {
		if c >= utf8.RuneSelf {
			return k, utf8.Valid(k)
		}
	}
	return k, true
}

// stringValue scans a string or null (wasNull tells which) and decodes it as encoding/json does.
func (s *jsonScanner) stringValue() (v string, wasNull, ok bool) {
	if s.null() {
		return "", true, true
	}
	from := s.i
	start, end, escaped, ok := s.str()
	if !ok {
		return "", false, false
	}
	content := s.data[start:end]
	if !escaped && utf8.Valid(content) {
		return internString(content), false, true
	}
	if json.Unmarshal(s.data[from:s.i], &v) != nil {
		return "", false, false
	}
	return v, false, true
}

// internString avoids an allocation for the strings every catalog repeats thousands of times.
func internString(b []byte) string {
	switch string(b) {
	case "olm.package":
		return "olm.package"
	case "olm.bundle":
		return "olm.bundle"
	case "olm.channel":
		return "olm.channel"
	case "olm.gvk":
		return "olm.gvk"
	case "olm.gvk.required":
		return "olm.gvk.required"
	case "olm.package.required":
		return "olm.package.required"
	case "olm.bundle.object":
		return "olm.bundle.object"
	case "olm.csv.metadata":
		return "olm.csv.metadata"
	case "olm.maxOpenShiftVersion":
		return "olm.maxOpenShiftVersion"
	case "":
		return ""
	}
	return string(b)
}

// number scans a JSON number.
func (s *jsonScanner) number() bool {
	end, ok := jsonscan.NumberEnd(s.data, s.i)
	if ok {
		s.i = end
	}
	return ok
}

// rawValue scans any JSON value and returns its exact text, as encoding/json hands it to a
// json.RawMessage.
func (s *jsonScanner) rawValue() ([]byte, bool) {
	s.space()
	start := s.i
	if !s.skipValue() {
		return nil, false
	}
	return s.data[start:s.i], true
}

// skipValue scans one JSON value (s.i at its first byte), checking it completely.
func (s *jsonScanner) skipValue() bool {
	var inObject [maxSkipDepth / 64]uint64 // bit set: the container at that depth is an object
	depth := 0
	for {
		// A value starts here.
		switch c := s.next(); c {
		case '{', '[':
			if depth == maxSkipDepth {
				return false
			}
			s.i++
			isObject := c == '{'
			if isObject {
				inObject[depth>>6] |= 1 << (depth & 63)
			} else {
				inObject[depth>>6] &^= 1 << (depth & 63)
			}
			depth++
			if s.consume(c + 2) { // '{'+2 == '}', '['+2 == ']'
				depth--
				break
			}
			if isObject && !s.memberName() {
				return false
			}
			continue
		case '"':
			if _, _, _, ok := s.str(); !ok {
				return false
			}
		case 't':
			if !s.literal("true") {
				return false
			}
		case 'f':
			if !s.literal("false") {
				return false
			}
		case 'n':
			if !s.literal("null") {
				return false
			}
		default:
			if !s.number() {
				return false
			}
		}
		// A value ended: close containers until one goes on.
		for {
			if depth == 0 {
				return true
			}
			isObject := inObject[(depth-1)>>6]&(1<<((depth-1)&63)) != 0
			if s.consume(',') {
				if isObject && !s.memberName() {
					return false
				}
				break
			}
			closing := byte(']')
			if isObject {
				closing = '}'
			}
			if !s.consume(closing) {
				return false
			}
			depth--
		}
	}
}

// memberName scans `"key":` inside an object being skipped.
func (s *jsonScanner) memberName() bool {
	s.space()
	if _, _, _, ok := s.str(); !ok {
		return false
	}
	return s.consume(':')
}
