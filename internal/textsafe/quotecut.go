package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxQuoted is how many bytes of user input of unbounded size (a version range, an image, a name
// from a configuration) an error message quotes: a 249 KB range once made a 1.2 MB error line.
const MaxQuoted = 200

// QuoteCut is s as Go's %q quotes it (every control character escaped, so one line), cut after
// MaxQuoted bytes of quoted text with "..." inside the quotes and the length of s.
func QuoteCut(s string) string {
	q := fmt.Sprintf("%q", s)
	if len(q) <= MaxQuoted+2 {
		return q
	}
	return `"` + cutAt(q[1:len(q)-1], MaxQuoted) + fmt.Sprintf(`..." (%d bytes)`, len(s))
}

// ErrorAbout is a library's error about input as a message may quote it after quoting input once
// (with QuoteCut): when input is longer than MaxQuoted, the part of the error that quotes it again
// (from its first quote) is left out; the rest is Terminal-safe and cut to MaxQuoted bytes.
func ErrorAbout(err error, input string) string {
	msg := err.Error()
	if len(input) > MaxQuoted {
		if i := strings.IndexByte(msg, '"'); i >= 0 {
			msg = strings.TrimRight(msg[:i], ": ")
		}
	}
	msg = Terminal(msg)
	if len(msg) > MaxQuoted {
		msg = cutAt(msg, MaxQuoted) + "..."
	}
	return msg
}

// cutAt is s cut to at most n bytes, at a rune boundary.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
