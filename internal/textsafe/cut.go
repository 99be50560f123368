package textsafe

import (
	"strconv"
	"unicode/utf8"
)

// MaxShown is the most bytes of one catalog string (a name, a value, a message) that the outputs
// for people show: a string longer than a screen is shown cut (Cut), with its length, never
// wrapped over thousands of lines. Machine formats (JSON, YAML, File-Based Catalogs) keep it whole.
const MaxShown = 1024

// Cut returns s when it is at most max bytes long; otherwise its first max bytes or fewer (whole
// characters) and "…(N bytes)", N the length of s with thousands separators:
// "p.v1.0.1-aaaa…(1,048,576 bytes)". Cut runs before the escaping of the output format: what it
// keeps is escaped as any text is.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	k := max
	for k > 0 && k > max-utf8.UTFMax && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…(" + Thousands(len(s)) + " bytes)"
}

// Thousands writes n with a comma between groups of three digits: 1,048,576.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return neg + string(out)
}
