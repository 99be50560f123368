package jsonscan

// maxDepth is encoding/json's limit on nested objects and arrays (an empty one counts).
const maxDepth = 10000

// Valid is encoding/json.Valid: data is one JSON value with white space around it.
func Valid(data []byte) bool {
	i := SkipSpace(data, 0)
	n, ok := ValidValueEnd(data[i:])
	return ok && SkipSpace(data, i+n) == len(data)
}

// ValidValueEnd returns the index just past the JSON value starting at b[0], checked as
// encoding/json.Valid checks a value: the grammar of RFC 8259, the bytes of strings not checked to
// be UTF-8, at most 10,000 levels of nesting. ok is false when b does not start with a valid value.
// It is one pass where ValueEnd then json.Valid were two, and several times faster than
// encoding/json's scanner, which calls a function per byte.
func ValidValueEnd(b []byte) (n int, ok bool) {
	var stack []byte // the open containers: '{' or '['
	i := 0
	for {
		// A value starts at i.
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return 0, false
			}
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == end {
				i++ // an empty one: a value that ended
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = objectKey(b, i); !ok {
					return 0, false
				}
			}
			continue
		case c == '"':
			if i, ok = validString(b, i); !ok {
				return 0, false
			}
		case c == '-' || ('0' <= c && c <= '9'):
			if i, ok = NumberEnd(b, i); !ok {
				return 0, false
			}
		case c == 't':
			if i, ok = literal(b, i, "true"); !ok {
				return 0, false
			}
		case c == 'f':
			if i, ok = literal(b, i, "false"); !ok {
				return 0, false
			}
		case c == 'n':
			if i, ok = literal(b, i, "null"); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
		// A value ended at i: close containers, or go on to the next element.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = SkipSpace(b, i+1)
				if top == '{' {
					if i, ok = objectKey(b, i); !ok {
						return 0, false
					}
				}
				break
			}
			if (top == '{' && b[i] == '}') || (top == '[' && b[i] == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return 0, false
		}
		i = SkipSpace(b, i)
	}
}

// objectKey reads `"key" :` and the space after it, from i; it returns where the value starts.
func objectKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := validString(b, i)
	if !ok {
		return 0, false
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return SkipSpace(b, i+1), true
}

// validString returns the index just past the string starting at b[i] == '"'.
func validString(b []byte, i int) (int, bool) {
	end, _, ok := StringContentEnd(b, i+1)
	return end + 1, ok
}

// NumberEnd returns the index just past the JSON number starting at b[i]; ok is false when none
// starts there: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func NumberEnd(b []byte, i int) (end int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}
