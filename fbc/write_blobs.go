package fbc

import (
	"bufio"
	"bytes"
	"fmt"
)

// EachBlobJSON hands every blob of c to fn, one at a time, encoded as Write encodes it in JSON
// (opm's four-space indented form, HTML unescaped), in the order packages, channels, bundles,
// deprecations, then the other blobs as they are. Blob.Data is only valid during the call.
//
// It is what a consumer of a converted index.db's blobs that decodes or normalizes them (the HTTP
// API's store) uses instead of encoding/json: the blobs Write's fast writer takes (every blob of
// a converted package) are written without reflection and without re-scanning the bundle
// objects, most of the bytes; the others go through the encoder, as Write does.
func EachBlobJSON(c *Catalog, fn func(Blob) error) error {
	var buf bytes.Buffer
	jw := &jsonBlobWriter{w: bufio.NewWriterSize(&buf, 64<<10)}
	emit := func(schema, pkg, name string, loc Location, write func()) error {
		buf.Reset()
		jw.err = nil
		write()
		if jw.err == nil {
			jw.err = jw.w.Flush()
		}
		if jw.err != nil {
			err := jw.err
			jw.w.Reset(&buf)
			return fmt.Errorf("encode %s %q of package %q: %w", schema, name, pkg, err)
		}
		return fn(Blob{Schema: schema, Package: pkg, Name: name, Data: buf.Bytes(), Loc: loc})
	}
	for i := range c.Packages {
		p := &c.Packages[i]
		if err := emit(SchemaPackage, p.Name, p.Name, p.Loc, func() { jw.pkg(p) }); err != nil {
			return err
		}
	}
	for i := range c.Channels {
		ch := &c.Channels[i]
		write := func() { jw.channel(ch) }
		if !fastChannel(ch) {
			write = func() { jw.encode(ch) }
		}
		if err := emit(SchemaChannel, ch.Package, ch.Name, ch.Loc, write); err != nil {
			return err
		}
	}
	for i := range c.Bundles {
		b := &c.Bundles[i]
		write := func() { jw.bundle(b) }
		if !fastBundle(b) {
			write = func() { jw.encode(b) }
		}
		if err := emit(SchemaBundle, b.Package, b.Name, b.Loc, write); err != nil {
			return err
		}
	}
	for i := range c.Deprecations {
		d := &c.Deprecations[i]
		write := func() { jw.deprecation(d) }
		if !fastDeprecation(d) {
			write = func() { jw.encode(d) }
		}
		if err := emit(SchemaDeprecations, d.Package, "", d.Loc, write); err != nil {
			return err
		}
	}
	for _, o := range c.Others {
		if err := fn(Blob{Schema: o.Schema, Package: o.Package, Name: o.Name, Data: o.Blob, Loc: o.Loc}); err != nil {
			return err
		}
	}
	return nil
}

// fastChannel, fastBundle and fastDeprecation say that the fast writer writes the blob as the
// encoder does (fastWritable's conditions, blob by blob).
func fastChannel(ch *Channel) bool {
	if ch.Package == "" || len(ch.Properties) > 0 || len(ch.Extra) > 0 {
		return false
	}
	for _, e := range ch.Entries {
		if len(e.Extra) > 0 {
			return false
		}
	}
	return true
}

func fastBundle(b *Bundle) bool {
	if b.Package == "" || b.Name == "" || len(b.Extra) > 0 || b.deferred != nil || b.builder != nil {
		return false
	}
	for _, ri := range b.RelatedImages {
		if len(ri.Extra) > 0 {
			return false
		}
	}
	return true
}

func fastDeprecation(d *Deprecation) bool {
	if d.Package == "" || len(d.Extra) > 0 {
		return false
	}
	for _, e := range d.Entries {
		if len(e.Extra) > 0 || len(e.Reference.Extra) > 0 {
			return false
		}
	}
	return true
}
