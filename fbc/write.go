package fbc

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// Format is an on-disk encoding of a catalog.
type Format string

const (
	JSON Format = "json"
	YAML Format = "yaml"
)

// ParseFormat accepts "json" or "yaml".
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case JSON, YAML:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown output format %q: use json or yaml", s)
}

// Ext is the file extension, with its dot.
func (f Format) Ext() string { return "." + string(f) }

// Write writes the catalog as one stream in opm's order: packages by name, and within a package
// the olm.package blob, its channels by name, its bundles by name, other schemas by schema, then
// its deprecations. Blobs that belong to no package come first.
func Write(w io.Writer, c *Catalog, f Format) error {
	var bw *bufio.Writer
	for _, part := range SplitByPackage(c) {
		if !fastWritable(part.Catalog) {
			if bw != nil {
				if err := bw.Flush(); err != nil {
					return err
				}
			}
			if err := writePackage(w, part.Catalog, f); err != nil {
				return err
			}
			continue
		}
		if bw == nil {
			bw = bufio.NewWriterSize(w, 1<<20)
		}
		if f == YAML {
			if err := writeCatalogYAML(bw, part.Catalog); err != nil {
				return err // named as writePackage names it
			}
			continue
		}
		if err := writeCatalogJSON(bw, part.Catalog); err != nil {
			return fmt.Errorf("package %q: %w", part.Package, err)
		}
	}
	if bw != nil {
		return bw.Flush()
	}
	return nil
}

// PackagePart is the part of a catalog that belongs to one package ("" for package-less blobs).
type PackagePart struct {
	Package string
	Catalog *Catalog
}

// SplitByPackage groups the blobs by package, sorted by package name.
func SplitByPackage(c *Catalog) []PackagePart {
	parts := map[string]*Catalog{}
	get := func(name string) *Catalog {
		p, ok := parts[name]
		if !ok {
			p = &Catalog{}
			parts[name] = p
		}
		return p
	}
	for _, p := range c.Packages {
		get(p.Name).Packages = append(get(p.Name).Packages, p)
	}
	for _, ch := range c.Channels {
		get(ch.Package).Channels = append(get(ch.Package).Channels, ch)
	}
	for _, b := range c.Bundles {
		get(b.Package).Bundles = append(get(b.Package).Bundles, b)
	}
	for _, d := range c.Deprecations {
		get(d.Package).Deprecations = append(get(d.Package).Deprecations, d)
	}
	for _, m := range c.Others {
		get(m.Package).Others = append(get(m.Package).Others, m)
	}
	out := make([]PackagePart, 0, len(parts))
	for name, p := range parts {
		out = append(out, PackagePart{Package: name, Catalog: p})
	}
	slices.SortFunc(out, func(a, b PackagePart) int { return cmp.Compare(a.Package, b.Package) })
	return out
}

func writePackage(w io.Writer, c *Catalog, f Format) error {
	enc := newBlobEncoder(w, f)
	pkgs := slices.Clone(c.Packages)
	slices.SortStableFunc(pkgs, func(a, b Package) int { return cmp.Compare(a.Name, b.Name) })
	for i := range pkgs {
		if err := enc.encode(pkgs[i]); err != nil {
			return fmt.Errorf("package %q: %w", pkgs[i].Name, err)
		}
	}
	chs := slices.Clone(c.Channels)
	slices.SortStableFunc(chs, func(a, b Channel) int { return cmp.Compare(a.Name, b.Name) })
	for i := range chs {
		if err := enc.encode(chs[i]); err != nil {
			return fmt.Errorf("channel %q of package %q: %w", chs[i].Name, chs[i].Package, err)
		}
	}
	bundles := slices.Clone(c.Bundles)
	slices.SortStableFunc(bundles, func(a, b Bundle) int { return cmp.Compare(a.Name, b.Name) })
	for i := range bundles {
		if err := enc.encode(bundles[i]); err != nil {
			return fmt.Errorf("bundle %q of package %q: %w", bundles[i].Name, bundles[i].Package, err)
		}
	}
	others := slices.Clone(c.Others)
	slices.SortStableFunc(others, func(a, b Meta) int { return cmp.Compare(a.Schema, b.Schema) })
	for i := range others {
		if err := enc.encode(others[i]); err != nil {
			return fmt.Errorf("%s blob at %s: %w", others[i].Schema, others[i].Loc, err)
		}
	}
	for i := range c.Deprecations {
		if err := enc.encode(c.Deprecations[i]); err != nil {
			return fmt.Errorf("deprecations of package %q: %w", c.Deprecations[i].Package, err)
		}
	}
	return nil
}

type blobEncoder struct {
	w    io.Writer
	f    Format
	json *json.Encoder
	buf  bytes.Buffer
	yaml []byte
	n    countingWriter
}

// countingWriter counts what goes through it, to hold each blob to the loader's size limit.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

func newBlobEncoder(w io.Writer, f Format) *blobEncoder {
	e := &blobEncoder{f: f}
	e.n.w = w
	w = &e.n
	e.w = w
	if f == YAML {
		e.json = json.NewEncoder(&e.buf)
		e.json.SetEscapeHTML(false)
	} else {
		e.json = json.NewEncoder(w)
		e.json.SetIndent("", "    ")
		e.json.SetEscapeHTML(false)
	}
	return e
}

// encode writes one blob. YAML goes through JSON first, as opm's writer does: keys come out sorted
// and every document is preceded by "---". A blob larger than the loader accepts is an error.
func (e *blobEncoder) encode(v any) error {
	start := e.n.n
	err := e.encodeBlob(v)
	if size := e.n.n - start; err == nil && size > DefaultMaxBlobSize {
		return tooLargeToWrite(v, size)
	}
	return err
}

func (e *blobEncoder) encodeBlob(v any) error {
	if e.f != YAML {
		return e.json.Encode(v)
	}
	e.buf.Reset()
	if err := e.json.Encode(v); err != nil {
		return err
	}
	y, err := blobYAML(e.yaml[:0], e.buf.Bytes())
	if err != nil {
		return err
	}
	e.yaml = y
	_, err = e.w.Write(y)
	return err
}

// blobYAML appends "---" and the YAML document of the JSON blob j: written straight from j
// (appendYAMLDocument), or by the generic path for what that leaves to it.
func blobYAML(dst, j []byte) ([]byte, error) {
	dst = append(dst, "---\n"...)
	if y, ok := appendYAMLDocument(dst, j); ok {
		return y, nil
	}
	y, err := genericJSONToYAML(j)
	if err != nil {
		return dst, err
	}
	return append(dst, y...), nil
}

// genericJSONToYAML is opm's way: decode the JSON into generic values and encode those as YAML.
// It writes what appendYAMLDocument leaves to it, and is the reference the tests hold
// appendYAMLDocument to.
func genericJSONToYAML(j []byte) ([]byte, error) {
	return yaml.JSONToYAML(escapeForYAML(j))
}

// escapeForYAML escapes, as \uXXXX, the characters encoding/json leaves as they are in a string
// but the YAML parser under JSONToYAML refuses ("control characters are not allowed": DEL, the C1
// controls, U+FFFE, U+FFFF) or reads as a line break (NEL, U+0085, which became a space). They
// stand only inside strings, where the escape means the same. opm's writer fails on such a
// catalog (or turns NEL into a space); olmcat writes them, the YAML escaping them in turn.
func escapeForYAML(b []byte) []byte {
	if !slices.ContainsFunc(b, func(c byte) bool { return c == 0x7f || c == 0xc2 || c == 0xef }) {
		return b // the bytes every such character starts with
	}
	var out []byte
	done := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || 0x80 <= r && r <= 0x9f || r == 0xfffe || r == 0xffff {
			out = fmt.Appendf(append(out, b[done:i]...), `\u%04x`, r)
			done = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// BlobTooLargeError is a blob that would be written larger than the loader reads
// (DefaultMaxBlobSize): writing it would make a catalog that olmcat itself refuses.
type BlobTooLargeError struct {
	Schema, Package, Name string
	Size                  int
}

func (e *BlobTooLargeError) Error() string {
	what := fmt.Sprintf("%s blob %q of package %q", e.Schema, e.Name, e.Package)
	return fmt.Sprintf("%s would be %.1f MiB, larger than the %d MiB olmcat reads in one blob (and larger than a gRPC client receives by default); "+
		"nothing was written: shrink the bundle (large CRDs? migrate with --migrate-level bundle-object-to-csv-metadata)",
		what, float64(e.Size)/(1<<20), DefaultMaxBlobSize>>20)
}

func tooLargeToWrite(v any, size int) error {
	e := &BlobTooLargeError{Size: size}
	switch b := v.(type) {
	case Package:
		e.Schema, e.Package, e.Name = SchemaPackage, b.Name, b.Name
	case Channel:
		e.Schema, e.Package, e.Name = SchemaChannel, b.Package, b.Name
	case Bundle:
		e.Schema, e.Package, e.Name = SchemaBundle, b.Package, b.Name
	case Deprecation:
		e.Schema, e.Package = SchemaDeprecations, b.Package
	case Meta:
		e.Schema, e.Package, e.Name = b.Schema, b.Package, b.Name
	}
	return e
}
