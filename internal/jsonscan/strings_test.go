package jsonscan

import (
	"bytes"
	"strings"
	"testing"
)

// StringContentEnd, which goes a word or more at a time, ends where a byte-by-byte scan
// does: at the closing quote, or refusing at a control byte, a bad escape or the end of the text,
// wherever they fall.
func TestStringContentEndMatchesByteScan(t *testing.T) {
	byteScan := func(d []byte) (end int, escaped, ok bool) {
		for j := 1; j < len(d); j++ {
			switch c := d[j]; {
			case c == '"':
				return j, escaped, true
			case c == '\\':
				n := escapeLen(d[j:])
				if n == 0 {
					return 0, false, false
				}
				escaped = true
				j += n - 1
			case c < 0x20:
				return 0, false, false
			}
		}
		return 0, false, false
	}
	for n := 0; n <= 70; n++ {
		for at := 0; at <= n; at++ {
			for _, special := range []string{`"`, `\n`, `\u00e9`, `\x`, "\x00", "\x1f", "\x7f", "\xff", `\`, ` `} {
				body := []byte(strings.Repeat("b", at) + special + strings.Repeat("c", n-at))
				for _, text := range [][]byte{append([]byte{'"'}, body...), append(append([]byte{'"'}, body...), '"')} {
					end, escaped, ok := StringContentEnd(text, 1)
					wantEnd, wantEscaped, wantOK := byteScan(text)
					if ok != wantOK || ok && (end != wantEnd || escaped != wantEscaped) {
						t.Fatalf("%q: StringContentEnd = %d, %v, %v; want %d, %v, %v", text, end, escaped, ok, wantEnd, wantEscaped, wantOK)
					}
				}
			}
		}
	}
}

// FirstControlByte, which goes words at a time, agrees with a byte-by-byte look: every byte value
// at every place of strings long and short, among bytes that are printable or have their high
// bit set (which a word-wide subtraction could mistake).
func TestFirstControlByte(t *testing.T) {
	for n := 1; n <= 70; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				for _, fill := range []byte{'A', 0x20, 0x80, 0xA0, 0xFF} {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					want := len(b)
					for i, x := range b {
						if x < 0x20 {
							want = i
							break
						}
					}
					if got := FirstControlByte(b); got != want {
						t.Fatalf("%q: FirstControlByte %d, want %d", b, got, want)
					}
				}
			}
		}
	}
}
