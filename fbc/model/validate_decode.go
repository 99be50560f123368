package model

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/olmcat/olmcat/fbc"
)

// decodeBundleFast fills b with the name, package, image and properties of an olm.bundle blob
// whose text the loader has already checked to be valid JSON, in one scan and without copying:
// property values are sub-slices of data. It handles what catalogs hold in practice and returns
// false for anything else (escaped keys, fields of unexpected types, case-folded property keys),
// so that the caller decodes the blob the loader's way and gets the loader's error messages.
func decodeBundleFast(data []byte, b *fbc.Bundle) bool {
	s := scanner{data: data}
	s.space()
	if !s.consume('{') {
		return false
	}
	for first := true; ; first = false {
		s.space()
		if s.consume('}') {
			return true
		}
		if !first && !(s.consume(',') && s.spaceThen()) {
			return false
		}
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.space()
		if !s.consume(':') {
			return false
		}
		s.space()
		switch string(key) {
		case "schema", "name", "package", "image":
			v, ok := s.stringOrNull()
			if !ok {
				return false
			}
			switch string(key) {
			case "name":
				b.Name = v
			case "package":
				b.Package = v
			case "image":
				b.Image = v
			}
		case "properties":
			props, ok := s.properties()
			if !ok {
				return false
			}
			b.Properties = props
		case "relatedImages":
			if !s.relatedImages() {
				return false
			}
		default:
			if !s.skipValue() {
				return false
			}
		}
	}
}

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

func (s *scanner) spaceThen() bool { s.space(); return s.i < len(s.data) }

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) peek() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
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

// stringOrNull reads a string (decoding escapes when there are any) or null.
func (s *scanner) stringOrNull() (string, bool) {
	if s.peek() == 'n' {
		return "", s.literal("null")
	}
	start := s.i
	if content, ok := s.plainString(); ok && utf8.Valid(content) {
		return string(content), true
	}
	s.i = start
	if !s.skipValue() || s.data[start] != '"' {
		return "", false
	}
	var v string
	if json.Unmarshal(s.data[start:s.i], &v) != nil {
		return "", false
	}
	return v, true
}

func (s *scanner) literal(word string) bool {
	if bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// properties reads an array of {"type": string, "value": any} objects (or null).
func (s *scanner) properties() ([]fbc.Property, bool) {
	if s.peek() == 'n' {
		return nil, s.literal("null")
	}
	if !s.consume('[') {
		return nil, false
	}
	var props []fbc.Property
	for first := true; ; first = false {
		s.space()
		if s.consume(']') {
			return props, true
		}
		if !first && !(s.consume(',') && s.spaceThen()) {
			return nil, false
		}
		p, ok := s.property()
		if !ok {
			return nil, false
		}
		props = append(props, p)
	}
}

func (s *scanner) property() (fbc.Property, bool) {
	var p fbc.Property
	if !s.consume('{') {
		return p, false
	}
	for first := true; ; first = false {
		s.space()
		if s.consume('}') {
			return p, true
		}
		if !first && !(s.consume(',') && s.spaceThen()) {
			return p, false
		}
		key, ok := s.plainString()
		if !ok {
			return p, false
		}
		s.space()
		if !s.consume(':') {
			return p, false
		}
		s.space()
		switch k := string(key); {
		case k == "type":
			if p.Type, ok = s.stringOrNull(); !ok {
				return p, false
			}
		case k == "value":
			start := s.i
			if !s.skipValue() {
				return p, false
			}
			p.Value = json.RawMessage(s.data[start:s.i])
		case bytes.EqualFold(key, []byte("type")) || bytes.EqualFold(key, []byte("value")):
			return p, false // encoding/json matches struct fields case-insensitively; let it decide
		default:
			if !s.skipValue() {
				return p, false
			}
		}
	}
}

// relatedImages checks an array of {"name": string, "image": string} objects (or null); no rule
// reads them, but a blob the loader would refuse must not pass.
func (s *scanner) relatedImages() bool {
	if s.peek() == 'n' {
		return s.literal("null")
	}
	if !s.consume('[') {
		return false
	}
	for first := true; ; first = false {
		s.space()
		if s.consume(']') {
			return true
		}
		if !first && !(s.consume(',') && s.spaceThen()) {
			return false
		}
		if !s.consume('{') {
			return false
		}
		for firstKey := true; ; firstKey = false {
			s.space()
			if s.consume('}') {
				break
			}
			if !firstKey && !(s.consume(',') && s.spaceThen()) {
				return false
			}
			key, ok := s.plainString()
			if !ok {
				return false
			}
			s.space()
			if !s.consume(':') {
				return false
			}
			s.space()
			switch k := string(key); {
			case k == "name" || k == "image":
				if _, ok := s.stringOrNull(); !ok {
					return false
				}
			case bytes.EqualFold(key, []byte("name")) || bytes.EqualFold(key, []byte("image")):
				return false
			default:
				if !s.skipValue() {
					return false
				}
			}
		}
	}
}

// skipValue moves past one JSON value of text already known to be valid.
func (s *scanner) skipValue() bool {
	if s.i >= len(s.data) {
		return false
	}
	switch s.data[s.i] {
	case '"':
		for j := s.i + 1; j < len(s.data); {
			k := bytes.IndexByte(s.data[j:], '"')
			if k < 0 {
				return false
			}
			j += k
			backslashes := 0
			for b := j - 1; b > s.i && s.data[b] == '\\'; b-- {
				backslashes++
			}
			if backslashes%2 == 1 { // an escaped quote
				j++
				continue
			}
			s.i = j + 1
			return true
		}
		return false
	case '{', '[':
		depth := 0
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case '"':
				if !s.skipValue() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	default:
		start := s.i
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
