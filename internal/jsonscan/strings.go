package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

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

// StringContentEnd scans the content of a JSON string from d[start] (just past its opening quote)
// and returns the index of its closing quote, and whether it holds escapes. Escapes must be well
// formed and control characters absent, as JSON requires; invalid UTF-8 passes, as in
// encoding/json.
func StringContentEnd(d []byte, start int) (end int, escaped, ok bool) {
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
				j += FirstControlByte(d[j:stop])
			}
		} else {
			for j < len(d) && d[j] >= 0x20 && d[j] != '"' && d[j] != '\\' {
				j++
			}
		}
		if j >= len(d) {
			return 0, false, false
		}
		switch c := d[j]; {
		case c == '"':
			return j, escaped, true
		case c == '\\':
			n := escapeLen(d[j:])
			if n == 0 {
				return 0, false, false
			}
			escaped = true
			j += n
		case c < 0x20:
			return 0, false, false
		default:
			j++
		}
	}
}

// FirstControlByte is the index of the first byte of b below 0x20 (which JSON strings must
// escape), or len(b).
func FirstControlByte(b []byte) int {
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
