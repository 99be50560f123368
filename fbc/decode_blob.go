package fbc

import "encoding/base64"

// The fast decoders read a blob in one pass with jsonScanner, each key's value going straight to
// its field. They cover what catalogs hold (any layout, unknown fields, null values, escapes in
// string values) and return false on anything else: invalid JSON, a field of the wrong type,
// repeated keys, escaped keys, keys that encoding/json would match to a field case-insensitively.
// The caller then decodes the blob the encoding/json way (decodeReference), which gives the same
// result or the error message; FuzzDecodeBlob checks that both agree.
//
// Raw values (property values, unknown fields) are sub-slices of the input; UnmarshalJSON copies
// them afterwards (detach) into one buffer per blob.

// decodeFast fills b, which must have no properties and no related images yet; string fields are
// only set when the blob has them (not null), as encoding/json does.
func (b *Bundle) decodeFast(data []byte) bool {
	s := jsonScanner{data: data}
	var seen fieldSet
	var extra Extra
	ok := s.topObject(func(k []byte) bool {
		switch string(k) {
		case "schema":
			return seen.once(0) && s.stringInto(&b.Schema)
		case "name":
			return seen.once(1) && s.stringInto(&b.Name)
		case "package":
			return seen.once(2) && s.stringInto(&b.Package)
		case "image":
			return seen.once(3) && s.stringInto(&b.Image)
		case "properties":
			return seen.once(4) && s.properties(&b.Properties)
		case "relatedImages":
			return seen.once(5) && s.relatedImages(&b.RelatedImages)
		}
		return s.extraInto(&extra, k)
	})
	b.Extra = extra
	return ok
}

func (p *Package) decodeFast(data []byte) bool {
	s := jsonScanner{data: data}
	var seen fieldSet
	var extra Extra
	ok := s.topObject(func(k []byte) bool {
		switch string(k) {
		case "schema":
			return seen.once(0) && s.stringInto(&p.Schema)
		case "name":
			return seen.once(1) && s.stringInto(&p.Name)
		case "defaultChannel":
			return seen.once(2) && s.stringInto(&p.DefaultChannel)
		case "icon":
			return seen.once(3) && s.icon(&p.Icon)
		case "description":
			return seen.once(4) && s.stringInto(&p.Description)
		case "properties":
			return seen.once(5) && s.properties(&p.Properties)
		}
		return s.extraInto(&extra, k)
	})
	p.Extra = extra
	return ok
}

func (c *Channel) decodeFast(data []byte) bool {
	s := jsonScanner{data: data}
	var seen fieldSet
	var extra Extra
	ok := s.topObject(func(k []byte) bool {
		switch string(k) {
		case "schema":
			return seen.once(0) && s.stringInto(&c.Schema)
		case "name":
			return seen.once(1) && s.stringInto(&c.Name)
		case "package":
			return seen.once(2) && s.stringInto(&c.Package)
		case "entries":
			return seen.once(3) && s.channelEntries(&c.Entries)
		case "properties":
			return seen.once(4) && s.properties(&c.Properties)
		}
		return s.extraInto(&extra, k)
	})
	c.Extra = extra
	return ok
}

func (d *Deprecation) decodeFast(data []byte) bool {
	s := jsonScanner{data: data}
	var seen fieldSet
	var extra Extra
	ok := s.topObject(func(k []byte) bool {
		switch string(k) {
		case "schema":
			return seen.once(0) && s.stringInto(&d.Schema)
		case "package":
			return seen.once(1) && s.stringInto(&d.Package)
		case "entries":
			return seen.once(2) && s.deprecationEntries(&d.Entries)
		}
		return s.extraInto(&extra, k)
	})
	d.Extra = extra
	return ok
}

// properties reads a []Property the way encoding/json fills a struct: a null element is a zero
// Property, unknown keys are dropped, and a null type leaves it empty.
func (s *jsonScanner) properties(dst *[]Property) bool {
	return list(s, dst, func(p *Property) bool {
		var seen fieldSet
		_, ok := s.eachMember(func(k []byte) bool {
			switch string(k) {
			case "type":
				return seen.once(0) && s.stringInto(&p.Type)
			case "value":
				var ok bool
				p.Value, ok = s.rawValue()
				return seen.once(1) && ok
			}
			return !foldsLike(k, "type", "value") && s.skipValue()
		})
		return ok
	})
}

// icon reads a package icon (a struct decoded by encoding/json, like Property).
func (s *jsonScanner) icon(dst **Icon) bool {
	icon := &Icon{}
	var seen fieldSet
	wasNull, ok := s.eachMember(func(k []byte) bool {
		switch string(k) {
		case "base64data":
			v, wasNull, ok := s.stringValue()
			if !ok || !seen.once(0) {
				return false
			}
			if !wasNull {
				data := make([]byte, base64.StdEncoding.DecodedLen(len(v)))
				n, err := base64.StdEncoding.Decode(data, []byte(v))
				if err != nil {
					return false
				}
				icon.Data = data[:n]
			}
			return true
		case "mediatype":
			return seen.once(1) && s.stringInto(&icon.MediaType)
		}
		return !foldsLike(k, "base64data", "mediatype") && s.skipValue()
	})
	if ok && !wasNull {
		*dst = icon
	}
	return ok
}

func (s *jsonScanner) relatedImages(dst *[]RelatedImage) bool {
	return list(s, dst, func(ri *RelatedImage) bool {
		var seen fieldSet
		ok := s.elementObject(func(k []byte) bool {
			switch string(k) {
			case "name":
				return seen.once(0) && s.stringInto(&ri.Name)
			case "image":
				return seen.once(1) && s.stringInto(&ri.Image)
			}
			return s.extraInto(&ri.Extra, k)
		})
		return ok
	})
}

func (s *jsonScanner) channelEntries(dst *[]ChannelEntry) bool {
	return list(s, dst, func(e *ChannelEntry) bool {
		var seen fieldSet
		ok := s.elementObject(func(k []byte) bool {
			switch string(k) {
			case "name":
				return seen.once(0) && s.stringInto(&e.Name)
			case "replaces":
				return seen.once(1) && s.stringInto(&e.Replaces)
			case "skips":
				return seen.once(2) && s.strings(&e.Skips)
			case "skipRange":
				return seen.once(3) && s.stringInto(&e.SkipRange)
			}
			return s.extraInto(&e.Extra, k)
		})
		return ok
	})
}

// strings reads a []string; a null element is an empty string.
func (s *jsonScanner) strings(dst *[]string) bool {
	return list(s, dst, func(v *string) bool {
		str, _, ok := s.stringValue()
		*v = str
		return ok
	})
}

func (s *jsonScanner) deprecationEntries(dst *[]DeprecationEntry) bool {
	return list(s, dst, func(e *DeprecationEntry) bool {
		var seen fieldSet
		ok := s.elementObject(func(k []byte) bool {
			switch string(k) {
			case "reference":
				return seen.once(0) && s.reference(&e.Reference)
			case "message":
				return seen.once(1) && s.stringInto(&e.Message)
			}
			return s.extraInto(&e.Extra, k)
		})
		return ok
	})
}

// reference reads a deprecation entry's reference; null leaves it zero.
func (s *jsonScanner) reference(ref *Reference) bool {
	var seen fieldSet
	_, ok := s.eachMember(func(k []byte) bool {
		switch string(k) {
		case "schema":
			return seen.once(0) && s.stringInto(&ref.Schema)
		case "name":
			return seen.once(1) && s.stringInto(&ref.Name)
		}
		return s.extraInto(&ref.Extra, k)
	})
	return ok
}

// list reads a JSON array into *dst the way encoding/json fills a slice: null leaves *dst as it
// is, [] gives an empty (non-nil) slice, and each element is read by elem.
func list[T any](s *jsonScanner, dst *[]T, elem func(*T) bool) bool {
	var out []T
	wasNull, ok := s.eachElement(func() bool {
		var v T
		ok := elem(&v)
		out = append(out, v)
		return ok
	})
	if ok && !wasNull {
		if out == nil {
			out = []T{}
		}
		*dst = out
	}
	return ok
}
