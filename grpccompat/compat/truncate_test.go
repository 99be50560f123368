package compat

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var moreRE = regexp.MustCompile(`\n\.\.\. \((\d+) more characters\)$`)

// splitNote returns the shown text and the count of its "more characters" note (-1: none).
func splitNote(t *testing.T, out string) (string, int) {
	m := moreRE.FindStringSubmatchIndex(out)
	if m == nil {
		return out, -1
	}
	n, err := strconv.Atoi(out[m[2]:m[3]])
	if err != nil {
		t.Fatal(err)
	}
	return out[:m[0]], n
}

// Truncated text is valid UTF-8 whatever the input, never longer than the limit plus the note,
// cut on a rune boundary as late as the limit allows, and the note counts the characters left
// out; cutting it again keeps the count right.
func FuzzTruncateText(f *testing.F) {
	f.Add("héllo wörld", 3, 2)
	f.Add("-\u00a0\u00a0 non-breaking", 2, 1)
	f.Add("a\xffb\xc2", 2, 1)
	f.Add(strings.Repeat("é", 100), 51, 7)
	f.Add("日本語のテキスト", 4, 0)
	f.Add("", 0, 0)
	f.Fuzz(func(t *testing.T, s string, n, again int) {
		n, again = n%300, again%300
		out := truncateText(s, n)
		if !utf8.ValidString(out) {
			t.Fatalf("truncateText(%q, %d) = %q: not valid UTF-8", s, n, out)
		}
		if !utf8.ValidString(s) {
			if body, more := splitNote(t, out); more >= 0 && len(body) > n {
				t.Fatalf("truncateText(%q, %d) = %q: longer than the limit", s, n, out)
			}
			return
		}
		if n <= 0 || len(s) <= n {
			if out != s {
				t.Fatalf("truncateText(%q, %d) = %q: changed a text within the limit", s, n, out)
			}
			return
		}
		body, more := splitNote(t, out)
		if !strings.HasPrefix(s, body) || len(body) > n || n-len(body) >= utf8.UTFMax || more != utf8.RuneCountInString(s[len(body):]) {
			t.Fatalf("truncateText(%q, %d) = %q: not the longest prefix within the limit with its count", s, n, out)
		}
		if again <= 0 {
			return
		}
		twice := recut(out, again)
		body2, more2 := splitNote(t, twice)
		if !utf8.ValidString(twice) || !strings.HasPrefix(s, body2) || len(body2) > again ||
			more2 != utf8.RuneCountInString(s[len(body2):]) {
			t.Fatalf("recut(%q, %d) = %q: wrong cut or count", out, again, twice)
		}
	})
}

// A pair of long strings is shown as two windows around their first difference: valid UTF-8,
// bounded, and different when the strings are.
func FuzzShortenPair(f *testing.F) {
	f.Add(strings.Repeat("a", 200)+"x", strings.Repeat("a", 200)+"y")
	f.Add(strings.Repeat("é", 80), strings.Repeat("é", 79)+"e")
	f.Add("\xff\xfe"+strings.Repeat("\u00a0", 60), "short")
	f.Fuzz(func(t *testing.T, l, r string) {
		ls, rs := shortenPair(l, r)
		for _, s := range []string{ls, rs} {
			if !utf8.ValidString(s) || len(s) > 4*valueWidth+2+2*len("…") {
				t.Fatalf("shortenPair(%q, %q): %q", l, r, s)
			}
		}
		if (l == r) != (ls == rs) {
			t.Fatalf("shortenPair(%q, %q) = %q, %q: the difference is not shown", l, r, ls, rs)
		}
		if p := printable(l); !utf8.ValidString(p) || utf8.ValidString(l) && !strings.ContainsFunc(l, func(c rune) bool { return !strconv.IsPrint(c) }) && p != l {
			t.Fatalf("printable(%q) = %q", l, p)
		}
	})
}

// An alignment visits every element of both lists once, in order, and pairs equal elements.
func FuzzAlign(f *testing.F) {
	f.Add([]byte("abc"), []byte("ac"))
	f.Add([]byte("ab"), []byte("xab"))
	f.Add([]byte("abc"), []byte("axcd"))
	f.Fuzz(func(t *testing.T, l, r []byte) {
		pairs := align(len(l), len(r), func(i, j int) bool { return l[i] == r[j] })
		nextL, nextR := 0, 0
		for _, p := range pairs {
			if p.l >= 0 {
				if p.l != nextL {
					t.Fatalf("align(%q, %q) = %v: left out of order", l, r, pairs)
				}
				nextL++
			}
			if p.r >= 0 {
				if p.r != nextR {
					t.Fatalf("align(%q, %q) = %v: right out of order", l, r, pairs)
				}
				nextR++
			}
		}
		if nextL != len(l) || nextR != len(r) {
			t.Fatalf("align(%q, %q) = %v: not every element", l, r, pairs)
		}
	})
}

func TestAlign(t *testing.T) {
	for _, tc := range []struct{ l, r, want string }{
		{"abc", "ac", "0 1:- 2:1"},            // one dropped: one difference, not a shifted tail
		{"ab", "xab", "-:0 0:1 1:2"},          // one added in front
		{"abc", "axcd", "0 1 2 -:3"},          // one changed, one added
		{"abcd", "abxd", "0 1 2 3"},           // same lengths: by index
		{"aab", "b", "0:- 1:- 2:0"},           // common element found past the unmatched ones
		{"xyz", "ab", "0 1 2:-"},              // nothing in common: paired in order
		{"abcde", "ade", "0 1:- 2:- 3:1 4:2"}, // two dropped
	} {
		var got []string
		for _, p := range align(len(tc.l), len(tc.r), func(i, j int) bool { return tc.l[i] == tc.r[j] }) {
			switch {
			case p.l == p.r:
				got = append(got, strconv.Itoa(p.l))
			case p.l < 0:
				got = append(got, fmt.Sprintf("-:%d", p.r))
			case p.r < 0:
				got = append(got, fmt.Sprintf("%d:-", p.l))
			default:
				got = append(got, fmt.Sprintf("%d:%d", p.l, p.r))
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("align(%s, %s) = %s, want %s", tc.l, tc.r, g, tc.want)
		}
	}
}
