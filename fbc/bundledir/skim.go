package bundledir

import "bytes"

// A manifest's JSON is decoded for a few small fields (its kind and name, a CRD's names and
// versions) but can weigh hundreds of kilobytes (a CRD's OpenAPI schema): encoding/json would
// check and walk all of it for each struct. skim first cuts the JSON down to the members the
// struct can take, so that the struct decodes from a few hundred bytes to the same values.

// members says which members of a JSON object to keep: a name maps to the members to keep of
// its value (applied to each element of an array), or to nil to keep the value whole.
type members map[string]members

// skim returns the valid JSON value data (json.Marshal's output: skim does not check it) with
// only the members of its objects that m names, at every depth m describes. A member is kept
// when its name matches one of m as encoding/json matches a struct field's (ignoring ASCII case);
// a name with an escape or a non-ASCII byte is always kept (encoding/json folds some of those
// too), so that decoding a struct of m's fields gives what decoding data gives.
func skim(data []byte, m members) []byte {
	s := skimmer{b: data}
	return s.value(make([]byte, 0, 256), m)
}

type skimmer struct {
	b []byte
	i int
}

func (s *skimmer) peek() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

func (s *skimmer) skipString() {
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return
		}
	}
}

func (s *skimmer) skipValue() {
	switch s.peek() {
	case '"':
		s.skipString()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default:
		for s.i < len(s.b) && bytes.IndexByte([]byte(",}] \t\n\r"), s.b[s.i]) < 0 {
			s.i++
		}
	}
}

func (s *skimmer) value(dst []byte, m members) []byte {
	c := s.peek()
	start := s.i
	switch {
	case m != nil && c == '{':
		s.i++
		dst = append(dst, '{')
		first := true
		for {
			switch s.peek() {
			case '}', 0:
				s.i++
				return append(dst, '}')
			case ',':
				s.i++
				continue
			}
			ks := s.i
			s.skipString()
			key := s.b[ks:min(s.i, len(s.b))]
			if s.peek() == ':' {
				s.i++
			}
			sub, keep := m.match(key)
			if !keep {
				s.skipValue()
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(append(dst, key...), ':')
			dst = s.value(dst, sub)
		}
	case m != nil && c == '[':
		s.i++
		dst = append(dst, '[')
		first := true
		for {
			switch s.peek() {
			case ']', 0:
				s.i++
				return append(dst, ']')
			case ',':
				s.i++
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = s.value(dst, m)
		}
	}
	s.skipValue()
	return append(dst, s.b[start:min(s.i, len(s.b))]...)
}

// match says whether a member named key (quoted, as written) is kept, and what of its value.
func (m members) match(key []byte) (members, bool) {
	name := key
	if len(name) >= 2 {
		name = name[1 : len(name)-1]
	}
	for _, c := range name {
		if c == '\\' || c >= 0x80 {
			return nil, true // kept whole: encoding/json may match it to a field
		}
	}
	for want, sub := range m {
		if len(want) == len(name) && bytes.EqualFold([]byte(want), name) {
			return sub, true
		}
	}
	return nil, false
}
