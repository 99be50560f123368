package fbc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"
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
	d, i := s.data, s.i
	for i < len(d) {
		switch d[i] {
		case ' ':
			// Indented JSON: the indentation goes a word at a time.
			if i+8 <= len(d) && binary.LittleEndian.Uint64(d[i:]) == lowBits*' ' {
				i += 8
				continue
			}
			i++
		case '\t', '\n', '\r':
			i++
		default:
			s.i = i
			return
		}
	}
	s.i = i
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

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// specialBytes marks (with its high bit) the first byte of the little-endian word x that is a
// quote, a backslash or a control character; bytes after the first marked one may be marked
// wrongly, so only the lowest mark is meaningful.
func specialBytes(x uint64) uint64 {
	quote := x ^ (lowBits * '"')
	backslash := x ^ (lowBits * '\\')
	return ((quote - lowBits) &^ quote) | ((backslash - lowBits) &^ backslash) | ((x - lowBits*0x20) &^ x)
}

// str scans the string starting at s.i and returns the bounds of its content (between the
// quotes) and whether it holds escapes. Escapes must be well formed and control characters
// absent, as JSON requires; invalid UTF-8 passes, as in encoding/json.
func (s *jsonScanner) str() (start, end int, escaped, ok bool) {
	d := s.data
	if s.i >= len(d) || d[s.i] != '"' {
		return 0, 0, false, false
	}
	start = s.i + 1
	j := start
	quote := -1 // index of the next quote at or after j (len(d): none), once looked for
	for {
		// Most strings (keys, names) end within two words; the rest are long (base64
		// manifests, descriptions) and most of a catalog's bytes: for those the next quote is
		// found with bytes.IndexByte, which goes many bytes at a time, and only backslashes and
		// control bytes are looked for before it.
		if k := j + 16; k <= len(d) {
			if m := specialBytes(binary.LittleEndian.Uint64(d[j:])) & highBits; m != 0 {
				j += bits.TrailingZeros64(m) >> 3
			} else if m := specialBytes(binary.LittleEndian.Uint64(d[j+8:])) & highBits; m != 0 {
				j += 8 + bits.TrailingZeros64(m)>>3
			} else {
				j = k
				if quote < j {
					quote = len(d)
					if q := bytes.IndexByte(d[j:], '"'); q >= 0 {
						quote = j + q
					}
				}
				stop := quote
				if b := bytes.IndexByte(d[j:stop], '\\'); b >= 0 {
					stop = j + b
				}
				j += firstControlByte(d[j:stop])
			}
		} else {
			for j < len(d) && d[j] >= 0x20 && d[j] != '"' && d[j] != '\\' {
				j++
			}
		}
		if j >= len(d) {
			return 0, 0, false, false
		}
		switch c := d[j]; {
		case c == '"':
			s.i = j + 1
			return start, j, escaped, true
		case c == '\\':
			n := escapeLen(d[j:])
			if n == 0 {
				return 0, 0, false, false
			}
			escaped = true
			j += n
		case c < 0x20:
			return 0, 0, false, false
		default:
			j++
		}
	}
}

// firstControlByte is the index of the first byte of b below 0x20, or len(b).
func firstControlByte(b []byte) int {
	i := 0
	for ; i+32 <= len(b); i += 32 { // four words a round, to find the round with one
		w0 := binary.LittleEndian.Uint64(b[i:])
		w1 := binary.LittleEndian.Uint64(b[i+8:])
		w2 := binary.LittleEndian.Uint64(b[i+16:])
		w3 := binary.LittleEndian.Uint64(b[i+24:])
		if ((w0-lowBits*0x20)&^w0|(w1-lowBits*0x20)&^w1|(w2-lowBits*0x20)&^w2|(w3-lowBits*0x20)&^w3)&highBits != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// The lowest mark is the first byte below 0x20 (one borrows on subtracting 0x20 and
		// had its high bit clear); the bytes before it do not borrow, so are not marked.
		if m := (x - lowBits*0x20) &^ x & highBits; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b) && b[i] >= 0x20; i++ {
	}
	return i
}

// escapeLen is the length of the escape sequence at the start of b, 0 if it is not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !isHexDigit(c) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
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
	d, j := s.data, s.i
	if j < len(d) && d[j] == '-' {
		j++
	}
	switch {
	case j >= len(d):
		return false
	case d[j] == '0':
		j++
	case '1' <= d[j] && d[j] <= '9':
		j = skipDigits(d, j+1)
	default:
		return false
	}
	if j < len(d) && d[j] == '.' {
		k := skipDigits(d, j+1)
		if k == j+1 {
			return false
		}
		j = k
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		k := skipDigits(d, j)
		if k == j {
			return false
		}
		j = k
	}
	s.i = j
	return true
}

func skipDigits(d []byte, j int) int {
	for j < len(d) && '0' <= d[j] && d[j] <= '9' {
		j++
	}
	return j
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

// validJSON is json.Valid in one fast pass: what the scanner accepts is valid; what it refuses (or
// nests too deep for it) is left to json.Valid, so only invalid text is scanned twice.
func validJSON(data []byte) bool {
	s := jsonScanner{data: data}
	if s.skipValue() && s.atEnd() {
		return true
	}
	return json.Valid(data)
}
