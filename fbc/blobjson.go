package fbc

import (
	"encoding/json"
)

// The JSON form of every blob type. Known fields come out in opm's declcfg order (so written catalogs
// are byte-identical to opm's), unknown fields after them in key order. The same omit-empty rules
// as opm: image, entries, defaultChannel and relatedImages[].name are always written.

func (p Package) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("schema", p.Schema)
	o.str("name", p.Name)
	o.str("defaultChannel", p.DefaultChannel)
	if p.Icon != nil {
		if err := o.value("icon", p.Icon); err != nil {
			return nil, err
		}
	}
	o.strOmitEmpty("description", p.Description)
	if len(p.Properties) > 0 {
		if err := o.value("properties", p.Properties); err != nil {
			return nil, err
		}
	}
	o.extra(p.Extra)
	return o.bytes(), nil
}

// decodeReference is the encoding/json based decoding of a blob (see decode.go): the fast
// decoder's fallback, and what FuzzDecodeBlob compares it with.
func (p *Package) decodeReference(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("schema", &p.Schema)
	r.take("name", &p.Name)
	r.take("defaultChannel", &p.DefaultChannel)
	r.take("icon", &p.Icon)
	r.take("description", &p.Description)
	r.take("properties", &p.Properties)
	p.Extra = r.rest()
	return r.err
}

func (c Channel) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("schema", c.Schema)
	o.str("name", c.Name)
	o.str("package", c.Package)
	entries := c.Entries
	if entries == nil {
		entries = []ChannelEntry{}
	}
	if err := o.value("entries", entries); err != nil {
		return nil, err
	}
	if len(c.Properties) > 0 {
		if err := o.value("properties", c.Properties); err != nil {
			return nil, err
		}
	}
	o.extra(c.Extra)
	return o.bytes(), nil
}

func (c *Channel) decodeReference(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("schema", &c.Schema)
	r.take("name", &c.Name)
	r.take("package", &c.Package)
	r.take("entries", &c.Entries)
	r.take("properties", &c.Properties)
	c.Extra = r.rest()
	return r.err
}

func (e ChannelEntry) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("name", e.Name)
	o.strOmitEmpty("replaces", e.Replaces)
	if len(e.Skips) > 0 {
		if err := o.value("skips", e.Skips); err != nil {
			return nil, err
		}
	}
	o.strOmitEmpty("skipRange", e.SkipRange)
	o.extra(e.Extra)
	return o.bytes(), nil
}

func (e *ChannelEntry) UnmarshalJSON(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("name", &e.Name)
	r.take("replaces", &e.Replaces)
	r.take("skips", &e.Skips)
	r.take("skipRange", &e.SkipRange)
	e.Extra = r.rest()
	return r.err
}

func (b Bundle) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("schema", b.Schema)
	o.strOmitEmpty("name", b.Name)
	o.strOmitEmpty("package", b.Package)
	o.str("image", b.Image)
	if len(b.Properties) > 0 {
		if err := o.value("properties", b.Properties); err != nil {
			return nil, err
		}
	}
	if len(b.RelatedImages) > 0 {
		if err := o.value("relatedImages", b.RelatedImages); err != nil {
			return nil, err
		}
	}
	o.extra(b.Extra)
	return o.bytes(), nil
}

func (b *Bundle) decodeReference(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("schema", &b.Schema)
	r.take("name", &b.Name)
	r.take("package", &b.Package)
	r.take("image", &b.Image)
	r.take("properties", &b.Properties)
	r.take("relatedImages", &b.RelatedImages)
	b.Extra = r.rest()
	return r.err
}

func (ri RelatedImage) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("name", ri.Name)
	o.str("image", ri.Image)
	o.extra(ri.Extra)
	return o.bytes(), nil
}

func (ri *RelatedImage) UnmarshalJSON(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("name", &ri.Name)
	r.take("image", &ri.Image)
	ri.Extra = r.rest()
	return r.err
}

func (d Deprecation) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("schema", d.Schema)
	o.str("package", d.Package)
	entries := d.Entries
	if entries == nil {
		entries = []DeprecationEntry{}
	}
	if err := o.value("entries", entries); err != nil {
		return nil, err
	}
	o.extra(d.Extra)
	return o.bytes(), nil
}

func (d *Deprecation) decodeReference(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("schema", &d.Schema)
	r.take("package", &d.Package)
	r.take("entries", &d.Entries)
	d.Extra = r.rest()
	return r.err
}

func (e DeprecationEntry) MarshalJSON() ([]byte, error) {
	o := newObject()
	if err := o.value("reference", e.Reference); err != nil {
		return nil, err
	}
	o.str("message", e.Message)
	o.extra(e.Extra)
	return o.bytes(), nil
}

func (e *DeprecationEntry) UnmarshalJSON(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("reference", &e.Reference)
	r.take("message", &e.Message)
	e.Extra = r.rest()
	return r.err
}

func (ref Reference) MarshalJSON() ([]byte, error) {
	o := newObject()
	o.str("schema", ref.Schema)
	o.strOmitEmpty("name", ref.Name)
	o.extra(ref.Extra)
	return o.bytes(), nil
}

func (ref *Reference) UnmarshalJSON(data []byte) error {
	r, err := readObject(data)
	if err != nil {
		return err
	}
	r.take("schema", &ref.Schema)
	r.take("name", &ref.Name)
	ref.Extra = r.rest()
	return r.err
}

// MarshalJSON writes the blob as it was read.
func (m Meta) MarshalJSON() ([]byte, error) {
	if len(m.Blob) == 0 {
		return []byte("null"), nil
	}
	return m.Blob, nil
}

// UnmarshalJSON keeps the whole blob and picks out schema, package and name.
func (m *Meta) UnmarshalJSON(data []byte) error {
	var head struct {
		Schema  string `json:"schema"`
		Package string `json:"package"`
		Name    string `json:"name"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	m.Schema, m.Package, m.Name = head.Schema, head.Package, head.Name
	m.Blob = append(json.RawMessage(nil), data...)
	return nil
}
