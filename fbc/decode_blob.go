package fbc

import (
	"encoding/base64"
	"encoding/json"
)

// The fast decoders read a blob in one pass with jsonScanner, each key's value going straight to
// its field. They cover what catalogs hold (any layout, unknown fields, null values, escapes in
// string values) and return false on anything else: invalid JSON, a field of the wrong type,
// repeated keys, escaped keys, keys that encoding/json would match to a field case-insensitively.
// The caller then decodes the blob the encoding/json way (decodeReference), which gives the same
// result or the error message; FuzzDecodeBlob checks that both agree.
//
// Raw values (property values, unknown fields) are sub-slices of the input; UnmarshalJSON copies
// them afterwards (detach) into one buffer per blob.

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

// properties reads a []Property the way encoding/json fills a struct: a null element is a zero
// Property, unknown keys are dropped, and a null type leaves it empty.
func (s *jsonScanner) properties(dst *[]Property) bool {
	var props []Property
	wasNull, ok := s.eachElement(func() bool {
		var p Property
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
		props = append(props, p)
		return ok
	})
	if ok && !wasNull {
		if props == nil {
			props = []Property{}
		}
		*dst = props
	}
	return ok
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

// elementObject reads one array element that must be an object: encoding/json hands null to the
// element type's UnmarshalJSON, which refuses it.
func (s *jsonScanner) elementObject(member func(key []byte) bool) bool {
	if s.next() != '{' {
		return false
	}
	_, ok := s.eachMember(member)
	return ok
}

func (s *jsonScanner) relatedImages(dst *[]RelatedImage) bool {
	var images []RelatedImage
	wasNull, ok := s.eachElement(func() bool {
		var ri RelatedImage
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
		images = append(images, ri)
		return ok
	})
	if ok && !wasNull {
		if images == nil {
			images = []RelatedImage{}
		}
		*dst = images
	}
	return ok
}

func (s *jsonScanner) channelEntries(dst *[]ChannelEntry) bool {
	var entries []ChannelEntry
	wasNull, ok := s.eachElement(func() bool {
		var e ChannelEntry
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
		entries = append(entries, e)
		return ok
	})
	if ok && !wasNull {
		if entries == nil {
			entries = []ChannelEntry{}
		}
		*dst = entries
	}
	return ok
}

// strings reads a []string; a null element is an empty string.
func (s *jsonScanner) strings(dst *[]string) bool {
	var list []string
	wasNull, ok := s.eachElement(func() bool {
		v, _, ok := s.stringValue()
		list = append(list, v)
		return ok
	})
	if ok && !wasNull {
		if list == nil {
			list = []string{}
		}
		*dst = list
	}
	return ok
}

func (s *jsonScanner) deprecationEntries(dst *[]DeprecationEntry) bool {
	var entries []DeprecationEntry
	wasNull, ok := s.eachElement(func() bool {
		var e DeprecationEntry
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
		entries = append(entries, e)
		return ok
	})
	if ok && !wasNull {
		if entries == nil {
			entries = []DeprecationEntry{}
		}
		*dst = entries
	}
	return ok
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
