package fbc

// EqualJSON reports whether two JSON texts are the same up to whitespace outside strings: a
// property value as a file indents it and as a conversion writes it compact compare equal. It
// neither allocates nor validates; texts that differ otherwise (key order, escapes) are unequal
// even when they mean the same.
func EqualJSON(a, b []byte) bool {
	i, j := 0, 0
	inString, escaped := false, false
	for {
		if !inString {
			for i < len(a) && isJSONSpace(a[i]) {
				i++
			}
			for j < len(b) && isJSONSpace(b[j]) {
				j++
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		c := a[i]
		if c != b[j] {
			return false
		}
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		}
		i++
		j++
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
