package compat

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// truncateText cuts s to at most n bytes (n <= 0: no limit) on a rune boundary and says how many
// characters were left out: "\n... (N more characters)". The result is valid UTF-8 whatever s
// holds: invalid bytes are shown escaped (\xNN), each counted as one character.
func truncateText(s string, n int) string {
	body, rest := cutText(s, n)
	if rest == "" {
		return body
	}
	return body + moreNote(utf8.RuneCountInString(rest))
}

func moreNote(chars int) string { return fmt.Sprintf("\n... (%d more characters)", chars) }

// cutText returns the shown part of s (invalid bytes escaped) and the rest, left out.
func cutText(s string, n int) (body, rest string) {
	if utf8.ValidString(s) {
		if n <= 0 || len(s) <= n {
			return s, ""
		}
		end := n
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		return s[:end], s[end:]
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		piece := s[i : i+size]
		if r == utf8.RuneError && size == 1 {
			piece = fmt.Sprintf(`\x%02x`, s[i])
		}
		if n > 0 && b.Len()+len(piece) > n {
			break
		}
		b.WriteString(piece)
		i += size
	}
	return b.String(), s[i:]
}

// A note truncateText or answerText left at the end of a text.
var cutNote = regexp.MustCompile(`\n\.\.\. \((?:(\d+) more characters|\d+ messages in all)\)$`)

// recut cuts a text that may already have been cut, keeping the character count right: the
// characters cut now are added to those an earlier cut left out.
func recut(s string, n int) string {
	var earlier int
	var note string
	if m := cutNote.FindStringSubmatchIndex(s); m != nil {
		if m[2] >= 0 {
			earlier, _ = strconv.Atoi(s[m[2]:m[3]])
		} else {
			note = s[m[0]:]
		}
		s = s[:m[0]]
	}
	body, rest := cutText(s, n)
	switch {
	case note != "":
		return body + note
	case rest == "" && earlier == 0:
		return body
	}
	return body + moreNote(utf8.RuneCountInString(rest)+earlier)
}

// capLines cuts a difference text after the last whole line that fits in n bytes.
func capLines(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], '\n') + 1
	if cut == 0 {
		return truncateText(s, n) + "\n"
	}
	return s[:cut] + fmt.Sprintf("... (%d more lines)\n", strings.Count(strings.TrimSuffix(s[cut:], "\n"), "\n")+1)
}
