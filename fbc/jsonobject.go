package fbc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"
)

// objectWriter builds one compact JSON object with keys in the order they are added, the way Go's
// encoding/json writes a struct, but with HTML escaping off (as opm's writer sets it).
type objectWriter struct {
	buf   []byte
	first bool
}

func newObject() *objectWriter { return &objectWriter{buf: []byte{'{'}, first: true} }

func (o *objectWriter) key(k string) {
	if !o.first {
		o.buf = append(o.buf, ',')
	}
	o.first = false
	o.buf = appendJSONString(o.buf, k)
	o.buf = append(o.buf, ':')
}

func (o *objectWriter) str(k, v string) {
	o.key(k)
	o.buf = appendJSONString(o.buf, v)
}

func (o *objectWriter) strOmitEmpty(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *objectWriter) raw(k string, v []byte) {
	o.key(k)
	if len(v) == 0 {
		o.buf = append(o.buf, "null"...)
		return
	}
	o.buf = append(o.buf, v...)
}

func (o *objectWriter) value(k string, v any) error {
	b, err := marshalNoEscape(v)
	if err != nil {
		return fmt.Errorf("field %q: %w", k, err)
	}
	o.raw(k, b)
	return nil
}

func (o *objectWriter) extra(e Extra) {
	if len(e) == 0 {
		return
	}
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.raw(k, e[k])
	}
}

func (o *objectWriter) bytes() []byte { return append(o.buf, '}') }

// marshalNoEscape is json.Marshal with HTML escaping off.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does with HTML escaping off: control characters,
// quotes, backslashes, U+2028/U+2029 and invalid UTF-8 are escaped; everything else is literal.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// objectReader takes a JSON object apart field by field, remembering the fields nobody asked for.
type objectReader struct {
	fields map[string]json.RawMessage
	err    error
}

func readObject(data []byte) (*objectReader, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, fmt.Errorf("expected a JSON object, found null")
	}
	return &objectReader{fields: fields}, nil
}

func (r *objectReader) take(k string, into any) {
	raw, ok := r.fields[k]
	if !ok {
		return
	}
	delete(r.fields, k)
	if r.err != nil || string(raw) == "null" {
		return
	}
	if err := json.Unmarshal(raw, into); err != nil {
		r.err = fmt.Errorf("field %q: %w", k, err)
	}
}

func (r *objectReader) takeRaw(k string) json.RawMessage {
	raw, ok := r.fields[k]
	if !ok {
		return nil
	}
	delete(r.fields, k)
	return raw
}

func (r *objectReader) rest() Extra {
	if len(r.fields) == 0 {
		return nil
	}
	return Extra(r.fields)
}
