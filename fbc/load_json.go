package fbc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// readJSON reads a stream of concatenated JSON values, one blob each. A syntax error ends the file:
// past it, where one value ends and the next begins is guesswork.
func (fr *fileReader) readJSON(br *bufio.Reader) error {
	s := jsonSplitter{br: br, line: 1, max: fr.maxBlob, off: fr.base}
	for {
		data, line, err := s.next()
		loc := Location{File: fr.file, Line: line}
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, ErrBlobTooLarge):
			fr.report(tooLarge(loc, fr.maxBlob))
			return nil
		case err == io.ErrUnexpectedEOF:
			fr.report(locErr(loc, ErrSyntax,
				"unexpected EOF: the file ends inside this blob; the JSON is truncated or a closing brace or quote is missing"))
			return nil
		case err != nil:
			fr.report(readError(Location{File: fr.file, Line: s.line}, err))
			return nil
		}
		n := len(data)
		b, lerr := newBlob(data, loc, !fr.checked)
		if lerr == nil {
			b.span.place(s.start, n, line)
		}
		if lerr != nil {
			fr.report(lerr)
			if errors.Is(lerr, ErrSyntax) {
				return nil
			}
			continue
		}
		if err := fr.emit(b); err != nil {
			return err
		}
	}
}

// jsonSplitter cuts a byte stream into top-level JSON values without decoding them. It only tracks
// strings and bracket depth; whether the value is valid JSON is checked afterwards.
type jsonSplitter struct {
	br    *bufio.Reader
	line  int   // line of the next unread byte
	off   int64 // offset in the file of the next unread byte
	start int64 // offset in the file of the value next returned last
	max   int
}

// next returns the next top-level value and the line it starts on; io.EOF when there is none left,
// io.ErrUnexpectedEOF when the stream ends inside a value, ErrBlobTooLarge past the size limit.
func (s *jsonSplitter) next() ([]byte, int, error) {
	if err := s.skipSpace(); err != nil {
		return nil, s.line, err
	}
	start := s.line
	s.start = s.off
	data, err := s.scanValue()
	return data, start, err
}

func (s *jsonSplitter) skipSpace() error {
	for {
		w, err := window(s.br)
		if err != nil {
			return err
		}
		for i, c := range w {
			switch c {
			case '\n':
				s.line++
			case ' ', '\t', '\r':
			default:
				_, _ = s.br.Discard(i)
				s.off += int64(i)
				return nil
			}
		}
		_, _ = s.br.Discard(len(w))
		s.off += int64(len(w))
	}
}

var newline = []byte{'\n'}

// nextIndex is the index of the first c in w at or after from, or len(w).
func nextIndex(w []byte, from int, c byte) int {
	if j := bytes.IndexByte(w[from:], c); j >= 0 {
		return from + j
	}
	return len(w)
}

// isJSONDelimiter reports whether c ends a bare literal (number, true, false, null, or garbage).
func isJSONDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '{', '}', '[', ']', ',', ':', '"':
		return true
	}
	return false
}

// scanValue reads one value starting at a non-space byte.
func (s *jsonSplitter) scanValue() ([]byte, error) {
	var out []byte
	depth := 0
	inString, escaped := false, false
	literal, first := false, true
	for {
		w, err := window(s.br)
		if err == io.EOF {
			if literal {
				return out, nil
			}
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		end := -1 // index in w just past the value, once found
		i := 0
		quote := -1 // index in w of the next '"' at or after i inside a string (len(w): none), once looked up
		if first {
			first = false
			switch w[0] {
			case '{', '[':
				depth = 1
			case '"':
				inString = true
			default:
				literal = true
				if isJSONDelimiter(w[0]) {
					end = 1 // a stray delimiter: hand it over alone, validation names it
				}
			}
			i = 1
		}
	scan:
		for ; end < 0 && i < len(w); i++ {
			c := w[i]
			switch {
			case literal:
				if isJSONDelimiter(c) {
					end = i
					break scan
				}
			case inString:
				if escaped {
					escaped = false
					continue
				}
				// Jump to the string's next quote or backslash: most of a bundle's bytes are long
				// strings (base64 manifests, descriptions).
				if quote < i {
					quote = nextIndex(w, i, '"')
				}
				stop := quote
				if bs := bytes.IndexByte(w[i:quote], '\\'); bs >= 0 {
					stop = i + bs
				}
				s.line += bytes.Count(w[i:stop], newline)
				i = stop
				if i == len(w) {
					break scan
				}
				if w[i] == '\\' {
					escaped = true
					continue
				}
				inString = false
				if depth == 0 {
					end = i + 1
					break scan
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
						break scan
					}
				case '\n':
					s.line++
				}
			}
		}
		n := len(w)
		if end >= 0 {
			n = end
		}
		var ok bool
		if out, ok = appendCapped(out, w[:n], s.max, true); !ok {
			dropTooLarge(out)
			return nil, ErrBlobTooLarge
		}
		_, _ = s.br.Discard(n)
		s.off += int64(n)
		if end >= 0 {
			return out, nil
		}
	}
}
