package fbcbackend

import (
	"bytes"
	"encoding/json"
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
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return encodeNoEscape(v)
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

// compactNormal drops the white space of a value normalJSON accepted (its strings hold no
// escapes, so a quote always opens or closes one).
func compactNormal(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	inString := false
	for _, c := range raw {
		switch {
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
		return normalString(b, i)
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
func normalString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(b); {
		c := b[j]
		switch {
		case c == '"':
			return j + 1, true
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
