package fbc

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
