package model

import (
	"bytes"
	"unicode/utf8"

	"github.com/olmcat/olmcat/fbc"
)

// decodeBundleFast decodes an olm.bundle blob with fbc's one-pass decoder, without copying: property
// values are sub-slices of data (the validator drops the bundle once checked). It returns false
// when the blob does not decode, so that the caller decodes it the loader's way (Catalog.Add) and
// reports the loader's error.
func decodeBundleFast(data []byte, b *fbc.Bundle) bool {
	return fbc.DecodeBundleShared(data, b) == nil
}

// scanner reads the few JSON shapes the property checks look at in place (see plainDataField).
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string without escapes and returns its content.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	rest := s.data[s.i:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	s.i += end + 1
	return rest[:end], true
}

// stringObject reports whether raw is a JSON object whose members are all strings without escapes
// or control characters, such as {"group": "g", "kind": "K", "version": "v1"}: one that decodes
// into any struct of string fields.
func stringObject(raw []byte) bool {
	s := scanner{data: raw}
	s.space()
	if !s.consume('{') {
		return false
	}
	s.space()
	if s.consume('}') {
		s.space()
		return s.i == len(raw)
	}
	for {
		if !s.safeString() {
			return false
		}
		s.space()
		if !s.consume(':') {
			return false
		}
		s.space()
		if !s.safeString() {
			return false
		}
		s.space()
		switch {
		case s.consume(','):
			s.space()
		case s.consume('}'):
			s.space()
			return s.i == len(raw)
		default:
			return false
		}
	}
}

// safeString reads a plain string that encoding/json decodes without complaint: valid UTF-8, no
// control characters.
func (s *scanner) safeString() bool {
	str, ok := s.plainString()
	return ok && utf8.Valid(str) && !bytes.ContainsFunc(str, func(r rune) bool { return r < 0x20 })
}
