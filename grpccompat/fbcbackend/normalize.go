package fbcbackend

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// normalizeJSON re-encodes a JSON value the way opm serve sees every catalog blob: decoded into Go
// maps and re-encoded, so object keys come out sorted, numbers go through float64 (integers above
// 2^53 lose precision) and <, > and & stay literal. A value already in that form but for white
// space (most property values are) is only compacted; with no white space either, it is returned
// as is, sharing raw's memory.
func normalizeJSON(raw []byte) ([]byte, error) {
	if normal, spaced := normalJSON(raw); normal {
		if spaced {
			return compactNormal(raw), nil
		}
		return raw, nil
	}
	if sorted, ok := sortJSON(raw); ok {
		return sorted, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return encodeNoEscape(v)
}

// sortJSON is normalizeJSON's second shortcut, for values that are normal but for white space and
// the order of object keys (what opm render and olmcat migrate write: keys in struct order): it
// compacts and sorts the keys without decoding into maps. It answers false whenever normalJSON
// would be in doubt about a string or a number, or a key repeats.
func sortJSON(raw []byte) ([]byte, bool) {
	s := keySorter{out: make([]byte, 0, len(raw))}
	end, ok := s.value(raw, 0, 0)
	if !ok || skipJSONSpace(raw, end) != len(raw) {
		return nil, false
	}
	return s.out, true
}

type keySorter struct {
	out     []byte
	scratch []byte
	members []sortedMember // the members of the objects being written, innermost last
}

// sortedMember is one `"key":value` already written to out[start:end].
type sortedMember struct {
	key        []byte
	start, end int
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// value writes the value at i (after white space) to out and returns the index past it.
func (s *keySorter) value(b []byte, i, depth int) (int, bool) {
	i = skipJSONSpace(b, i)
	if i >= len(b) || depth > normalMaxDepth {
		return 0, false
	}
	switch ch := b[i]; {
	case ch == '{':
		return s.object(b, i, depth)
	case ch == '[':
		s.out = append(s.out, '[')
		if i = skipJSONSpace(b, i+1); i < len(b) && b[i] == ']' {
			s.out = append(s.out, ']')
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = s.value(b, i, depth+1); !ok {
				return 0, false
			}
			switch i = skipJSONSpace(b, i); {
			case i < len(b) && b[i] == ',':
				s.out = append(s.out, ',')
				i++
			case i < len(b) && b[i] == ']':
				s.out = append(s.out, ']')
				return i + 1, true
			default:
				return 0, false
			}
		}
	case ch == '"':
		end, ok := normalValueString(b, i)
		if ok {
			s.out = append(s.out, b[i:end]...)
		}
		return end, ok
	case ch == '-' || '0' <= ch && ch <= '9':
		end, ok := normalInteger(b, i)
		if ok {
			s.out = append(s.out, b[i:end]...)
		}
		return end, ok
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(b[i:], []byte(lit)) {
			s.out = append(s.out, lit...)
			return i + len(lit), true
		}
	}
	return 0, false
}

// object writes the members in source order, then, if their keys were out of order, moves them
// into order: the nested values are already in their final form.
func (s *keySorter) object(b []byte, i, depth int) (int, bool) {
	s.out = append(s.out, '{')
	if i = skipJSONSpace(b, i+1); i < len(b) && b[i] == '}' {
		s.out = append(s.out, '}')
		return i + 1, true
	}
	base, region, inOrder := len(s.members), len(s.out), true
	defer func() { s.members = s.members[:base] }()
	for {
		keyEnd, ok := normalString(b, i) // escapes in keys would sort by their escaped bytes
		if !ok {
			return 0, false
		}
		key := b[i+1 : keyEnd-1]
		if n := len(s.members); n > base {
			switch c := bytes.Compare(s.members[n-1].key, key); {
			case c == 0:
				return 0, false // repeated key: the decoder keeps the last one
			case c > 0:
				inOrder = false
			}
		}
		colon := skipJSONSpace(b, keyEnd)
		if colon >= len(b) || b[colon] != ':' {
			return 0, false
		}
		start := len(s.out)
		s.out = append(s.out, b[i:keyEnd]...)
		s.out = append(s.out, ':')
		if i, ok = s.value(b, colon+1, depth+1); !ok {
			return 0, false
		}
		s.members = append(s.members, sortedMember{key: key, start: start, end: len(s.out)})
		if i = skipJSONSpace(b, i); i < len(b) && b[i] == ',' {
			s.out = append(s.out, ',')
			i = skipJSONSpace(b, i+1)
			continue
		}
		if i >= len(b) || b[i] != '}' {
			return 0, false
		}
		i++
		break
	}
	if !inOrder {
		ms := s.members[base:]
		slices.SortFunc(ms, func(x, y sortedMember) int { return bytes.Compare(x.key, y.key) })
		for k := 1; k < len(ms); k++ {
			if bytes.Equal(ms[k-1].key, ms[k].key) {
				return 0, false
			}
		}
		s.scratch = append(s.scratch[:0], s.out[region:]...)
		s.out = s.out[:region]
		for k, m := range ms {
			if k > 0 {
				s.out = append(s.out, ',')
			}
			s.out = append(s.out, s.scratch[m.start-region:m.end-region]...)
		}
	}
	s.out = append(s.out, '}')
	return i, true
}

func encodeNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// normalJSON reports whether normalizeJSON's decode and re-encode would give raw back byte for
// byte once its white space is removed (spaced: there is some). It answers false whenever in doubt
// (escapes, fractions, deep nesting), which only costs the slow path.
func normalJSON(raw []byte) (normal, spaced bool) {
	c := normalChecker{b: raw}
	end, ok := c.value(c.space(0), 0)
	if !ok || c.space(end) != len(raw) {
		return false, false
	}
	return true, c.spaced
}

// isNormalJSON: raw is exactly what normalizeJSON would give.
func isNormalJSON(raw []byte) bool {
	normal, spaced := normalJSON(raw)
	return normal && !spaced
}

// compactNormal drops the white space of a value normalJSON accepted.
func compactNormal(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && isJSONSpace(c):
			continue
		}
		out = append(out, c)
	}
	return out
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

type normalChecker struct {
	b      []byte
	spaced bool
}

// space skips white space from i.
func (c *normalChecker) space(i int) int {
	start := i
	for i < len(c.b) && isJSONSpace(c.b[i]) {
		i++
	}
	if i > start {
		c.spaced = true
	}
	return i
}

// normalMaxDepth keeps the check's recursion shallow; encoding/json's own limit is far deeper.
const normalMaxDepth = 64

// value checks the value at i (not white space) and returns the index just past it.
func (c *normalChecker) value(i, depth int) (int, bool) {
	b := c.b
	if i >= len(b) || depth > normalMaxDepth {
		return 0, false
	}
	switch ch := b[i]; {
	case ch == '{':
		i = c.space(i + 1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		var prev []byte
		for first := true; ; first = false {
			start := i
			end, ok := normalString(b, i)
			if !ok {
				return 0, false
			}
			key := b[start+1 : end-1]
			// Keys strictly ascending: the encoder sorts them, and a repeated key would be
			// dropped by the decoder.
			if !first && bytes.Compare(prev, key) >= 0 {
				return 0, false
			}
			prev = key
			if end = c.space(end); end >= len(b) || b[end] != ':' {
				return 0, false
			}
			if i, ok = c.value(c.space(end+1), depth+1); !ok {
				return 0, false
			}
			var done bool
			if i, done, ok = c.after(i, '}'); !ok || done {
				return i, ok
			}
		}
	case ch == '[':
		i = c.space(i + 1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok, done bool
			if i, ok = c.value(i, depth+1); !ok {
				return 0, false
			}
			if i, done, ok = c.after(i, ']'); !ok || done {
				return i, ok
			}
		}
	case ch == '"':
		return normalValueString(b, i)
	case ch == '-' || '0' <= ch && ch <= '9':
		return normalInteger(b, i)
	case bytes.HasPrefix(b[i:], []byte("true")):
		return i + 4, true
	case bytes.HasPrefix(b[i:], []byte("false")):
		return i + 5, true
	case bytes.HasPrefix(b[i:], []byte("null")):
		return i + 4, true
	}
	return 0, false
}

// after reads what follows a member or an element at i: a comma, with more to come (next is the
// start of it), or closer (done; next is past it).
func (c *normalChecker) after(i int, closer byte) (next int, done, ok bool) {
	if i = c.space(i); i < len(c.b) {
		switch c.b[i] {
		case ',':
			return c.space(i + 1), false, true
		case closer:
			return i + 1, true, true
		}
	}
	return 0, false, false
}

// normalString accepts a string the encoder writes unchanged: no escapes, no control characters,
// valid UTF-8 without U+2028 and U+2029 (which it escapes). It returns the index past the closing
// quote.
func normalString(b []byte, i int) (int, bool) { return encodedString(b, i, false) }

// normalValueString is normalString that also accepts the escapes the encoder writes itself (a
// string value with line breaks is common; keys keep to normalString, whose bytes sort as the
// decoded keys do): \" \\ \b \f \n \r \t, \u00xx in lower-case hex for the other control
// characters, \u2028 and \u2029.
func normalValueString(b []byte, i int) (int, bool) { return encodedString(b, i, true) }

// encodedString accepts a string as encoding/json writes it, with its escapes (see encoderEscape)
// if escapes, else without any.
func encodedString(b []byte, i int, escapes bool) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); {
		c := b[j]
		switch {
		case c == '"':
			return j + 1, true
		case c == '\\' && escapes:
			n := encoderEscape(b[j:])
			if n == 0 {
				return 0, false
			}
			j += n
		case c == '\\' || c < 0x20:
			return 0, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
				return 0, false
			}
			j += size
		}
	}
	return 0, false
}

// encoderEscape is the length of the escape sequence at the start of b if encoding/json writes
// that character so, else 0.
func encoderEscape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		switch hex := string(b[2:6]); {
		case hex == "2028" || hex == "2029":
			return 6
		case hex[0] != '0' || hex[1] != '0' || hex[2] != '0' && hex[2] != '1':
			return 0
		}
		var low byte
		switch c := b[5]; {
		case '0' <= c && c <= '9':
			low = c - '0'
		case 'a' <= c && c <= 'f':
			low = c - 'a' + 10
		default:
			return 0
		}
		switch (b[4]-'0')<<4 | low {
		case '\b', '\f', '\n', '\r', '\t':
			return 0 // written as a short escape
		}
		return 6
	}
	return 0
}

// normalInteger accepts an integer of at most 15 digits, which float64 holds exactly and the
// encoder prints back as it was; -0 and anything with a fraction or exponent are left to the slow
// path.
func normalInteger(b []byte, i int) (int, bool) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := i
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	n := i - digits
	switch {
	case n == 0 || n > 15:
		return 0, false
	case b[digits] == '0' && (n > 1 || digits > start):
		return 0, false // leading zero (invalid JSON) or -0
	case i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'):
		return 0, false
	}
	return i, true
}

// hasJSONObjectPrefix is true when data, after leading white space, starts with '{': such manifest
// data is taken as JSON verbatim, anything else is YAML.
func hasJSONObjectPrefix(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n\f\v")
	return len(trimmed) > 0 && trimmed[0] == '{'
}
