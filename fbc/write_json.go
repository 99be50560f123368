package fbc

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// typeBundleObject is property.TypeBundleObject (package property imports this one).
const typeBundleObject = "olm.bundle.object"

// writeCatalogJSON writes one package's blobs exactly as the encoder path of Write (writePackage)
// does: opm's four-space indented, HTML-unescaped stream, but without re-scanning every value: the
// bundle objects, most of the bytes, are written straight from their base64 text. Write takes it
// for every package fastWritable accepts (every converted package, most loaded ones).
func writeCatalogJSON(w *bufio.Writer, c *Catalog) error {
	jw := &jsonBlobWriter{w: w}
	for i := range c.Packages {
		start := jw.n
		jw.pkg(&c.Packages[i])
		jw.limit(start, SchemaPackage, c.Packages[i].Name, c.Packages[i].Name)
	}
	for i := range c.Channels {
		jw.channel(&c.Channels[i])
	}
	for i := range c.Bundles {
		start := jw.n
		jw.bundle(&c.Bundles[i])
		jw.limit(start, SchemaBundle, c.Bundles[i].Package, c.Bundles[i].Name)
	}
	for i := range c.Deprecations {
		jw.deprecation(&c.Deprecations[i])
	}
	return jw.err
}

// fastWritable reports that the catalog has only what writeCatalogJSON writes, in Write's order.
func fastWritable(c *Catalog) bool {
	if len(c.Packages) > 1 || len(c.Others) > 0 || len(c.Deprecations) > 1 {
		return false
	}
	var pkg string
	switch {
	case len(c.Packages) == 1:
		pkg = c.Packages[0].Name
	case len(c.Bundles) > 0:
		pkg = c.Bundles[0].Package // bundles written on their own (a streamed template's)
	default:
		return false
	}
	for i, ch := range c.Channels {
		if ch.Package != pkg || len(ch.Properties) > 0 || len(ch.Extra) > 0 || (i > 0 && c.Channels[i-1].Name >= ch.Name) {
			return false
		}
		for _, e := range ch.Entries {
			if len(e.Extra) > 0 {
				return false
			}
		}
	}
	for i, b := range c.Bundles {
		if b.Package != pkg || len(b.Extra) > 0 || b.Name == "" || (i > 0 && c.Bundles[i-1].Name >= b.Name) {
			return false
		}
		for _, ri := range b.RelatedImages {
			if len(ri.Extra) > 0 {
				return false
			}
		}
	}
	for _, d := range c.Deprecations {
		if d.Package != pkg || len(d.Extra) > 0 {
			return false
		}
		for _, e := range d.Entries {
			if len(e.Extra) > 0 || len(e.Reference.Extra) > 0 {
				return false
			}
		}
	}
	return true
}

type jsonBlobWriter struct {
	w   *bufio.Writer
	err error
	buf bytes.Buffer
	n   int // bytes written, to hold each blob to the loader's size limit
}

func (j *jsonBlobWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
		j.n += len(s)
	}
}

func (j *jsonBlobWriter) rawBytes(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(b)
		j.n += len(b)
	}
}

// limit fails the write when the blob written since start is larger than the loader accepts.
func (j *jsonBlobWriter) limit(start int, schema, pkg, name string) {
	if size := j.n - start; j.err == nil && size > DefaultMaxBlobSize {
		j.err = &BlobTooLargeError{Schema: schema, Package: pkg, Name: name, Size: size}
	}
}

func (j *jsonBlobWriter) indent(depth int) { j.raw(strings.Repeat("    ", depth)) }

// field writes `"key": value` on its own line at depth; last says whether a comma follows.
func (j *jsonBlobWriter) field(depth int, key, value string, last bool) {
	j.indent(depth)
	j.raw(quoteJSON(key) + ": " + value)
	if !last {
		j.raw(",")
	}
	j.raw("\n")
}

func (j *jsonBlobWriter) pkg(p *Package) {
	if p.Description != "" || len(p.Properties) > 0 || len(p.Extra) > 0 {
		j.encode(p) // one small blob: the encoder writes it as writePackage does
		return
	}
	j.raw("{\n")
	j.field(1, "schema", quoteJSON(p.Schema), false)
	j.field(1, "name", quoteJSON(p.Name), false)
	j.field(1, "defaultChannel", quoteJSON(p.DefaultChannel), p.Icon == nil)
	if p.Icon != nil {
		j.field(1, "icon", "{", true)
		j.field(2, "base64data", quoteJSON(base64.StdEncoding.EncodeToString(p.Icon.Data)), false)
		j.field(2, "mediatype", quoteJSON(p.Icon.MediaType), true)
		j.indent(1)
		j.raw("}\n")
	}
	j.raw("}\n")
}

// encode writes v as writePackage's encoder does: four-space indented, HTML unescaped.
func (j *jsonBlobWriter) encode(v any) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	if j.err = enc.Encode(v); j.err == nil {
		j.rawBytes(j.buf.Bytes())
	}
}

func (j *jsonBlobWriter) channel(c *Channel) {
	j.raw("{\n")
	j.field(1, "schema", quoteJSON(c.Schema), false)
	j.field(1, "name", quoteJSON(c.Name), false)
	j.field(1, "package", quoteJSON(c.Package), false)
	if len(c.Entries) == 0 {
		j.field(1, "entries", "[]", true)
		j.raw("}\n")
		return
	}
	j.field(1, "entries", "[", true)
	for i, e := range c.Entries {
		j.indent(2)
		j.raw("{\n")
		last := e.Replaces == "" && len(e.Skips) == 0 && e.SkipRange == ""
		j.field(3, "name", quoteJSON(e.Name), last)
		if e.Replaces != "" {
			j.field(3, "replaces", quoteJSON(e.Replaces), len(e.Skips) == 0 && e.SkipRange == "")
		}
		if len(e.Skips) > 0 {
			j.field(3, "skips", "[", true)
			for k, s := range e.Skips {
				j.indent(4)
				j.raw(quoteJSON(s))
				j.comma(k < len(e.Skips)-1)
			}
			j.indent(3)
			j.raw("]")
			j.comma(e.SkipRange != "")
		}
		if e.SkipRange != "" {
			j.field(3, "skipRange", quoteJSON(e.SkipRange), true)
		}
		j.indent(2)
		j.raw("}")
		j.comma(i < len(c.Entries)-1)
	}
	j.indent(1)
	j.raw("]\n}\n")
}

func (j *jsonBlobWriter) comma(more bool) {
	if more {
		j.raw(",")
	}
	j.raw("\n")
}

func (j *jsonBlobWriter) bundle(b *Bundle) {
	j.raw("{\n")
	j.field(1, "schema", quoteJSON(b.Schema), false)
	j.field(1, "name", quoteJSON(b.Name), false)
	j.field(1, "package", quoteJSON(b.Package), false)
	j.field(1, "image", quoteJSON(b.Image), len(b.Properties) == 0 && len(b.RelatedImages) == 0)
	if len(b.Properties) > 0 {
		j.field(1, "properties", "[", true)
		for i, p := range b.Properties {
			j.indent(2)
			j.raw("{\n")
			j.field(3, "type", quoteJSON(p.Type), false)
			j.indent(3)
			j.raw(`"value": `)
			j.value(p)
			j.raw("\n")
			j.indent(2)
			j.raw("}")
			j.comma(i < len(b.Properties)-1)
		}
		j.indent(1)
		j.raw("]")
		j.comma(len(b.RelatedImages) > 0)
	}
	if len(b.RelatedImages) > 0 {
		j.field(1, "relatedImages", "[", true)
		for i, ri := range b.RelatedImages {
			j.indent(2)
			j.raw("{\n")
			j.field(3, "name", quoteJSON(ri.Name), false)
			j.field(3, "image", quoteJSON(ri.Image), true)
			j.indent(2)
			j.raw("}")
			j.comma(i < len(b.RelatedImages)-1)
		}
		j.indent(1)
		j.raw("]\n")
	}
	j.raw("}\n")
}

// value writes a property value indented at depth 3. A bundle object {"data":"<base64>"}, compact
// as a conversion makes it or indented as a loaded file has it, is written from its base64 text;
// anything else goes through json.Indent.
func (j *jsonBlobWriter) value(p Property) {
	v := p.Value
	if len(v) == 0 {
		j.raw("null") // as encoding/json writes a nil json.RawMessage
		return
	}
	if p.Type == typeBundleObject {
		if data, ok := bundleObjectData(v); ok {
			j.raw("{\n" + strings.Repeat("    ", 4) + `"data": "`)
			j.rawBytes(data)
			j.raw("\"\n" + strings.Repeat("    ", 3) + "}")
			return
		}
	}
	j.buf.Reset()
	// The encoder of Write drops whitespace after the value; json.Indent would keep it.
	v = bytes.TrimRight(v, " \t\r\n")
	if err := json.Indent(&j.buf, v, strings.Repeat("    ", 3), "    "); err != nil {
		if j.err == nil {
			j.err = err
		}
		return
	}
	j.rawBytes(j.buf.Bytes())
}

func (j *jsonBlobWriter) deprecation(d *Deprecation) {
	j.raw("{\n")
	j.field(1, "schema", quoteJSON(d.Schema), false)
	j.field(1, "package", quoteJSON(d.Package), false)
	if len(d.Entries) == 0 {
		j.field(1, "entries", "[]", true)
		j.raw("}\n")
		return
	}
	j.field(1, "entries", "[", true)
	for i, e := range d.Entries {
		j.indent(2)
		j.raw("{\n")
		j.field(3, "reference", "{", true)
		j.field(4, "schema", quoteJSON(e.Reference.Schema), e.Reference.Name == "")
		if e.Reference.Name != "" {
			j.field(4, "name", quoteJSON(e.Reference.Name), true)
		}
		j.indent(3)
		j.raw("},\n")
		j.field(3, "message", quoteJSON(e.Message), true)
		j.indent(2)
		j.raw("}")
		j.comma(i < len(d.Entries)-1)
	}
	j.indent(1)
	j.raw("]\n}\n")
}

// bundleObjectData returns the string of v when v is an object whose only member is "data", a
// string without escapes, with any JSON whitespace around the tokens (what json.Indent writes for
// it is then known without scanning the string, most of a bundle's bytes).
func bundleObjectData(v []byte) ([]byte, bool) {
	rest, ok := token(v, '{')
	if !ok {
		return nil, false
	}
	if rest = trimJSONSpace(rest); !bytes.HasPrefix(rest, []byte(`"data"`)) {
		return nil, false
	}
	if rest, ok = token(rest[len(`"data"`):], ':'); !ok {
		return nil, false
	}
	if rest, ok = token(rest, '"'); !ok {
		return nil, false
	}
	// The string runs to the first quote, unless a backslash comes first. Both searches, and the
	// check for control characters, go a word or more at a time: this string is most of a
	// bundle's bytes.
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	data := rest[:end]
	if jsonscan.FirstControlByte(data) < len(data) { // not valid JSON: let json.Indent say so
		return nil, false
	}
	if rest, ok = token(rest[end+1:], '}'); !ok || len(trimJSONSpace(rest)) > 0 {
		return nil, false
	}
	return data, true
}

// token skips JSON whitespace and then the byte c, returning what follows.
func token(v []byte, c byte) ([]byte, bool) {
	v = trimJSONSpace(v)
	if len(v) == 0 || v[0] != c {
		return nil, false
	}
	return v[1:], true
}

func trimJSONSpace(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r') {
		v = v[1:]
	}
	return v
}

// quoteJSON quotes s as encoding/json does with HTML escaping off.
func quoteJSON(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c != '"' && c != '\\' && c < 0x80
	}
	if plain {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}
