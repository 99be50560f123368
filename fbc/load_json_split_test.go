package fbc

import (
	"bufio"
	"bytes"
	"io"
	"testing"
)

// splitPiece is one value cut by a JSON splitter: its text, the line it starts on, and the error
// that ended the stream (nil for a value).
type splitPiece struct {
	data string
	line int
	err  error
}

// referenceSplit cuts data the plain way, byte by byte, as a yardstick for jsonSplitter's
// shortcuts (it jumps through strings).
func referenceSplit(data []byte) []splitPiece {
	var out []splitPiece
	line, i := 1, 0
	for {
		for i < len(data) && isSpace(data[i]) {
			if data[i] == '\n' {
				line++
			}
			i++
		}
		if i == len(data) {
			return append(out, splitPiece{line: line, err: io.EOF})
		}
		start, startLine := i, line
		depth, inString, escaped, literal := 0, false, false, false
		switch data[i] {
		case '{', '[':
			depth = 1
		case '"':
			inString = true
		default:
			literal = true
			if isJSONDelimiter(data[i]) {
				out = append(out, splitPiece{data: string(data[i : i+1]), line: startLine})
				i++
				continue
			}
		}
		end := -1
		for i++; end < 0 && i < len(data); i++ {
			c := data[i]
			switch {
			case literal:
				if isJSONDelimiter(c) {
					end = i
				}
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					if depth == 0 {
						end = i + 1
					}
				case c == '\n':
					line++
				}
			default:
				switch c {
				case '"':
					inString = true
				case '{', '[':
					depth++
				case '}', ']':
					depth--
					if depth == 0 {
						end = i + 1
					}
				case '\n':
					line++
				}
			}
		}
		if end < 0 {
			if literal {
				out = append(out, splitPiece{data: string(data[start:]), line: startLine})
				return append(out, splitPiece{line: line, err: io.EOF})
			}
			return append(out, splitPiece{line: startLine, err: io.ErrUnexpectedEOF})
		}
		i = end
		out = append(out, splitPiece{data: string(data[start:end]), line: startLine})
	}
}

func splitWith(data []byte, bufSize int) []splitPiece {
	s := jsonSplitter{br: bufio.NewReaderSize(bytes.NewReader(data), bufSize), line: 1, max: 1 << 20}
	var out []splitPiece
	for {
		v, line, err := s.next()
		if err != nil {
			return append(out, splitPiece{line: line, err: err})
		}
		out = append(out, splitPiece{data: string(v), line: line})
	}
}

func checkSplitMatchesReference(t *testing.T, data []byte) {
	t.Helper()
	want := referenceSplit(data)
	for _, size := range []int{16, 17, 64, readBufferSize} { // 16: bufio's smallest window
		got := splitWith(data, size)
		if len(got) != len(want) {
			t.Fatalf("window %d: %d pieces, want %d\ngot  %+v\nwant %+v", size, len(got), len(want), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("window %d, piece %d: got %+v, want %+v", size, i, got[i], want[i])
			}
		}
	}
}

var splitSeeds = []string{
	`{"a":"b"}{"c":[1,2,{"d":"}"}]}`,
	"{\"a\":\"x\\\"y\\\\\"}\n\n{\"b\":\"\\\\\\\"\"}",
	"{\"multi\":\"line\none\ntwo\"}\n{\"x\":1}",
	"{\"esc\":\"a\\\nb\"}\n{\"after\":2}", // a raw newline right after a backslash is not counted
	`"top string" 12 true null , ]`,
	`{"long":"` + string(bytes.Repeat([]byte("QUJD"), 200)) + `","q":"\"\"\"\\"}`,
	"{\"unterminated\":\"abc",
	"{\"open\":[1,2",
	`{"s":"\u00e9\"}"}` + "\n" + `{"t":"}{"}`,
}

func TestJSONSplitterMatchesReference(t *testing.T) {
	for _, seed := range splitSeeds {
		checkSplitMatchesReference(t, []byte(seed))
	}
}

// FuzzJSONSplitter checks that jsonSplitter cuts any input as the byte-by-byte reference does, for
// windows small enough that strings and escapes straddle buffer refills.
func FuzzJSONSplitter(f *testing.F) {
	for _, seed := range splitSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplitMatchesReference(t, data)
	})
}

// referenceSkip is skipJSONValue as it was written first, byte by byte.
func referenceSkip(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = referenceSkip(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i + 1
		for j < len(b) && !isJSONDelimiter(b[j]) {
			j++
		}
		return j
	}
}

func checkSkipMatchesReference(t *testing.T, data []byte) {
	t.Helper()
	for i := range data {
		if got, want := skipJSONValue(data, i), referenceSkip(data, i); got != want {
			t.Fatalf("skipJSONValue(%q, %d) = %d, want %d", data, i, got, want)
		}
	}
}

func TestSkipJSONValueMatchesReference(t *testing.T) {
	for _, seed := range append(splitSeeds, `"a\\\"b\\\\"x"`, `["\\\\\\"]`, `"\"`) {
		checkSkipMatchesReference(t, []byte(seed))
	}
}

// FuzzSkipJSONValue checks skipJSONValue against the byte-by-byte reference at every offset.
func FuzzSkipJSONValue(f *testing.F) {
	for _, seed := range splitSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSkipMatchesReference(t, data)
	})
}
