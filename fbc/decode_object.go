package fbc

import (
	"bytes"
	"unicode/utf8"
)

// The object and array walks of the fast decoders (decode_blob.go), on top of jsonScanner.

// fieldSet remembers which known keys an object had, to give up on repeated ones (encoding/json
// keeps the last, and ignores type errors in the earlier ones).
type fieldSet uint32

func (f *fieldSet) once(i uint) bool {
	if *f&(1<<i) != 0 {
		return false
	}
	*f |= 1 << i
	return true
}

// topObject reads a whole blob: one object (not null), nothing but space after it.
func (s *jsonScanner) topObject(member func(key []byte) bool) bool {
	if s.next() != '{' {
		return false
	}
	_, ok := s.eachMember(member)
	return ok && s.atEnd()
}

// stringInto sets *dst from a string value and leaves it alone for null.
func (s *jsonScanner) stringInto(dst *string) bool {
	v, wasNull, ok := s.stringValue()
	if ok && !wasNull {
		*dst = v
	}
	return ok
}

// extraInto keeps an unknown field's raw value; a repeated unknown key gives up, like a known one.
func (s *jsonScanner) extraInto(extra *Extra, key []byte) bool {
	raw, ok := s.rawValue()
	if !ok {
		return false
	}
	if *extra == nil {
		*extra = Extra{}
	} else if _, repeated := (*extra)[string(key)]; repeated {
		return false
	}
	(*extra)[string(key)] = raw
	return true
}

// elementObject reads one array element that must be an object: encoding/json hands null to the
// element type's UnmarshalJSON, which refuses it.
func (s *jsonScanner) elementObject(member func(key []byte) bool) bool {
	if s.next() != '{' {
		return false
	}
	_, ok := s.eachMember(member)
	return ok
}

// eachMember calls member for every key of the object that comes next, with s.i at the key's value
// (past space); member must scan the value. A null object (wasNull) calls member never. It fails
// on anything but an object or null, and when member fails.
func (s *jsonScanner) eachMember(member func(key []byte) bool) (wasNull, ok bool) {
	if s.null() {
		return true, true
	}
	if !s.consume('{') {
		return false, false
	}
	if s.consume('}') {
		return false, true
	}
	for {
		s.space()
		k, ok := s.key()
		if !ok || !s.consume(':') {
			return false, false
		}
		s.space()
		if !member(k) {
			return false, false
		}
		if s.consume(',') {
			continue
		}
		return false, s.consume('}')
	}
}

// eachElement calls elem for every element of the array that comes next, with s.i at the element
// (past space); elem must scan the element. A null array (wasNull) calls elem never.
func (s *jsonScanner) eachElement(elem func() bool) (wasNull, ok bool) {
	if s.null() {
		return true, true
	}
	if !s.consume('[') {
		return false, false
	}
	if s.consume(']') {
		return false, true
	}
	for {
		s.space()
		if !elem() {
			return false, false
		}
		if s.consume(',') {
			continue
		}
		return false, s.consume(']')
	}
}

// foldsLike reports whether a key other than the exact field names could still be matched to one
// of them by encoding/json, which matches struct fields case-insensitively (with Unicode folding).
func foldsLike(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}
