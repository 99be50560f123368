package fbc

import "encoding/json"

// Decoding blobs: a one-pass decoder (decode_blob.go) does the work; whatever it does not handle
// goes through decodeReference, the encoding/json based decoding, which also gives the error
// messages (naming the field whose value has the wrong type).

// UnmarshalJSON decodes an olm.package blob. Unknown fields are kept in Extra; raw values (property
// values, unknown fields) are copies of their exact text in data.
func (p *Package) UnmarshalJSON(data []byte) error {
	if p.Icon == nil && p.Properties == nil {
		decoded := *p
		if decoded.decodeFast(data) {
			detach(decoded.eachRaw)
			*p = decoded
			return nil
		}
	}
	return p.decodeReference(data)
}

// UnmarshalJSON decodes an olm.channel blob, like Package.UnmarshalJSON.
func (c *Channel) UnmarshalJSON(data []byte) error {
	if c.Entries == nil && c.Properties == nil {
		decoded := *c
		if decoded.decodeFast(data) {
			detach(decoded.eachRaw)
			*c = decoded
			return nil
		}
	}
	return c.decodeReference(data)
}

// UnmarshalJSON decodes an olm.bundle blob, like Package.UnmarshalJSON.
func (b *Bundle) UnmarshalJSON(data []byte) error {
	if b.decodeShared(data) {
		detach(b.eachRaw)
		return nil
	}
	return b.decodeReference(data)
}

// UnmarshalJSON decodes an olm.deprecations blob, like Package.UnmarshalJSON.
func (d *Deprecation) UnmarshalJSON(data []byte) error {
	if d.Entries == nil {
		decoded := *d
		if decoded.decodeFast(data) {
			detach(decoded.eachRaw)
			*d = decoded
			return nil
		}
	}
	return d.decodeReference(data)
}

// DecodeBundleShared decodes an olm.bundle blob like Bundle.UnmarshalJSON, except that raw values
// (property values, unknown fields) are not copied: they share data's memory, so b is only valid
// as long as data is not modified. For callers that look at a bundle and drop it, such as a
// streaming validator.
func DecodeBundleShared(data []byte, b *Bundle) error {
	if b.decodeShared(data) {
		return nil
	}
	return b.decodeReference(data)
}

// decodeShared runs the fast decoder on a copy of b, so that b is untouched when it gives up.
// Slices must be nil: encoding/json would decode into their existing elements.
func (b *Bundle) decodeShared(data []byte) bool {
	if b.Properties != nil || b.RelatedImages != nil {
		return false
	}
	decoded := *b
	if !decoded.decodeFast(data) {
		return false
	}
	*b = decoded
	return true
}

// eachRaw visits every raw JSON value a decoded blob holds, for detach.
func eachExtraRaw(e Extra, visit func(*json.RawMessage)) {
	for k, v := range e {
		visit(&v)
		e[k] = v
	}
}

func (b *Bundle) eachRaw(visit func(*json.RawMessage)) {
	for i := range b.Properties {
		visit(&b.Properties[i].Value)
	}
	for i := range b.RelatedImages {
		eachExtraRaw(b.RelatedImages[i].Extra, visit)
	}
	eachExtraRaw(b.Extra, visit)
}

func (p *Package) eachRaw(visit func(*json.RawMessage)) {
	for i := range p.Properties {
		visit(&p.Properties[i].Value)
	}
	eachExtraRaw(p.Extra, visit)
}

func (c *Channel) eachRaw(visit func(*json.RawMessage)) {
	for i := range c.Entries {
		eachExtraRaw(c.Entries[i].Extra, visit)
	}
	for i := range c.Properties {
		visit(&c.Properties[i].Value)
	}
	eachExtraRaw(c.Extra, visit)
}

func (d *Deprecation) eachRaw(visit func(*json.RawMessage)) {
	for i := range d.Entries {
		eachExtraRaw(d.Entries[i].Reference.Extra, visit)
		eachExtraRaw(d.Entries[i].Extra, visit)
	}
	eachExtraRaw(d.Extra, visit)
}

// detach copies the raw values that eachRaw visits out of the decoded text into one buffer, so
// that the blob no longer shares the caller's memory.
func detach(eachRaw func(visit func(*json.RawMessage))) {
	size := 0
	eachRaw(func(r *json.RawMessage) { size += len(*r) })
	if size == 0 {
		return
	}
	buf := make([]byte, 0, size)
	eachRaw(func(r *json.RawMessage) {
		if *r == nil {
			return
		}
		start := len(buf)
		buf = append(buf, *r...)
		*r = buf[start:len(buf):len(buf)]
	})
}
