package source

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
)

// A catalog template (olm.template.basic, olm.semver, olm.template.substitutes) is a catalog
// reference like any other: a file, a git:REV:PATH file or standard input whose first document
// has a template schema is rendered when it is opened, and the Source is the rendered catalog.

// TemplateRenderer renders a catalog template into a catalog: data is the template as read, name
// how messages name it, bundles renders the bundle images the template names. The result is an FBC
// stream (JSON or YAML documents) and, when known, where its blobs came from in the template
// (problems of a blob are then reported at the template's line, not the rendered stream's).
type TemplateRenderer func(ctx context.Context, data []byte, name string, bundles template.BundleRenderer) ([]byte, *template.Locations, error)

// TemplateSchema reads the schema of the first document of r, a YAML or JSON stream, and returns
// it when it is a template schema. As in opm, the key is matched case-insensitively (`Schema:`
// works) and only the first document counts. It reads no more than fbc.BlobLimit bytes of r (a
// first document larger than that is no template olmcat reads), and of a stream that is not an
// io.ReadSeeker, which it cannot read twice, it keeps what it read (a stream that starts with '{'
// and is not JSON is read again as flow-style YAML, as opm's YAML-or-JSON decoder does).
func TemplateSchema(r io.Reader) (string, bool) {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(io.LimitReader(r, int64(fbc.BlobLimit())))
		if err != nil {
			return "", false
		}
		rs = bytes.NewReader(data)
	}
	schema, _ := firstSchema(rs)
	if slices.Contains(fbc.TemplateSchemas, schema) {
		return schema, true
	}
	return "", false
}

// firstSchema reads the schema of the first document of r as TemplateSchema does, and the line it
// is on (for JSON, the line the document starts on); "" and 0 when there is none. It reads at most
// fbc.BlobLimit bytes from where r stands, and holds at most that much: a catalog file of one
// endless line costs no more than the blob limit before the loader reports it (it took 2.5 GB for
// a line of 256 MiB, read whole three times).
func firstSchema(r io.ReadSeeker) (schema string, line int) {
	start, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", 0
	}
	limit := int64(fbc.BlobLimit())
	br := bufio.NewReaderSize(io.LimitReader(r, limit), 64<<10)
	first, blank, err := firstNonSpace(br)
	if err != nil {
		return "", 0
	}
	line = blank + 1
	if first == '{' {
		schema, err := jsonTopLevelSchema(br)
		switch {
		case err == nil:
			return schema, line
		case err != errNotJSON:
			// A value that ends before it closes, or goes on past the limit, or a schema that is
			// no string: no template (and no flow-style YAML either).
			return "", 0
		}
		// Not JSON: flow-style YAML (`{schema: olm.semver, ...}`), read again as YAML as opm reads it.
		if _, err := r.Seek(start, io.SeekStart); err != nil {
			return "", 0
		}
		data, err := io.ReadAll(io.LimitReader(r, limit))
		if err != nil {
			return "", 0
		}
		if schema, err = template.DetectSchema(data); err != nil {
			return "", 0
		}
		return schema, line
	}
	schema, at := yamlTopLevelSchema(br)
	if schema == "" {
		return "", 0
	}
	return schema, line + at
}

// jsonTopLevelSchema reads the JSON object br starts with and returns its "schema" member as
// encoding/json would decode it into a struct field Schema: the key matched without regard to
// case, the last match winning, a null leaving it unset, any other non-string an error. It scans
// the object a byte at a time and keeps only the keys of the object and the schema's value (up to
// maxKept bytes each): a value of any size, an endless line too, costs no memory. What is not
// JSON is errNotJSON (the caller reads it again as flow-style YAML); a read error, or the end of
// the input inside the object, is returned as it is.
func jsonTopLevelSchema(br *bufio.Reader) (string, error) {
	sc := jsonScanner{br: br}
	if c, err := sc.nonSpace(); err != nil || c != '{' {
		return "", cmp.Or(err, errNotJSON)
	}
	schema := ""
	for first := true; ; first = false {
		c, err := sc.nonSpace()
		if err != nil {
			return "", err
		}
		if c == '}' && first {
			return schema, nil
		}
		if c != '"' {
			return "", errNotJSON
		}
		key, err := sc.str(true)
		if err != nil {
			return "", err
		}
		if c, err := sc.nonSpace(); err != nil || c != ':' {
			return "", cmp.Or(err, errNotJSON)
		}
		if k, ok := decodeKept(key); ok && strings.EqualFold(k, "schema") {
			c, err := sc.nonSpace()
			if err != nil {
				return "", err
			}
			switch c {
			case '"':
				raw, err := sc.str(true)
				if err != nil {
					return "", err
				}
				v, ok := decodeKept(raw)
				if !ok {
					v = "" // longer than any schema: no template
				}
				schema = v
			case 'n':
				if err := sc.literal("ull"); err != nil {
					return "", err
				}
			default:
				// A schema that is no string: no template, whatever follows (encoding/json fails
				// to decode it, and so does the YAML reading of it).
				return "", errNoSchema
			}
		} else if err := sc.value(0); err != nil {
			return "", err
		}
		c, err = sc.nonSpace()
		switch {
		case err != nil:
			return "", err
		case c == '}':
			return schema, nil
		case c != ',':
			return "", errNotJSON
		}
	}
}

var (
	errNoSchema = errors.New("the schema is not a string")
	errNotJSON  = errors.New("not JSON")
)

// maxKept is how much of a key or of the schema's value jsonTopLevelSchema keeps: far more than
// any template schema, or "schema" written with escapes.
const maxKept = 1 << 10

// decodeKept decodes a JSON string kept whole (with its quotes); false when it was cut.
func decodeKept(raw []byte) (string, bool) {
	var s string
	if len(raw) > maxKept || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonScanner reads JSON from br a byte at a time, checking its structure and keeping nothing but
// what str is asked to keep.
type jsonScanner struct {
	br   *bufio.Reader
	kept []byte
}

func (sc *jsonScanner) nonSpace() (byte, error) {
	for {
		c, err := sc.br.ReadByte()
		if err != nil {
			return 0, unexpectedEOF(err)
		}
		if !isJSONSpace(c) {
			return c, nil
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// str reads the rest of a string whose opening quote was read; with keep, it returns the string
// with its quotes, up to maxKept+1 bytes of it.
func (sc *jsonScanner) str(keep bool) ([]byte, error) {
	sc.kept = append(sc.kept[:0], '"')
	add := func(c byte) {
		if keep && len(sc.kept) <= maxKept {
			sc.kept = append(sc.kept, c)
		}
	}
	for {
		c, err := sc.br.ReadByte()
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		switch {
		case c == '"':
			add(c)
			return sc.kept, nil
		case c < 0x20:
			return nil, errNotJSON
		case c == '\\':
			e, err := sc.br.ReadByte()
			if err != nil {
				return nil, unexpectedEOF(err)
			}
			if !strings.ContainsRune(`"\/bfnrtu`, rune(e)) {
				return nil, errNotJSON
			}
			add(c)
			add(e)
		default:
			add(c)
		}
	}
}

// literal reads the rest of true, false or null.
func (sc *jsonScanner) literal(rest string) error {
	for i := range len(rest) {
		c, err := sc.br.ReadByte()
		if err != nil {
			return unexpectedEOF(err)
		}
		if c != rest[i] {
			return errNotJSON
		}
	}
	return nil
}

// value reads one JSON value (depth: how deep it lies, bounded as encoding/json bounds it).
func (sc *jsonScanner) value(depth int) error {
	if depth > 10000 {
		return errNotJSON
	}
	c, err := sc.nonSpace()
	if err != nil {
		return err
	}
	switch {
	case c == '"':
		_, err := sc.str(false)
		return err
	case c == 't':
		return sc.literal("rue")
	case c == 'f':
		return sc.literal("alse")
	case c == 'n':
		return sc.literal("ull")
	case c == '-' || c >= '0' && c <= '9':
		for {
			c, err := sc.br.ReadByte()
			if err != nil {
				return unexpectedEOF(err)
			}
			if !strings.ContainsRune("0123456789.eE+-", rune(c)) {
				return sc.br.UnreadByte()
			}
		}
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		for first := true; ; first = false {
			c, err := sc.nonSpace()
			if err != nil {
				return err
			}
			if c == end && first {
				return nil
			}
			if end == '}' {
				if c != '"' {
					return errNotJSON
				}
				if _, err := sc.str(false); err != nil {
					return err
				}
				if c, err := sc.nonSpace(); err != nil || c != ':' {
					return cmp.Or(err, errNotJSON)
				}
			} else if err := sc.br.UnreadByte(); err != nil {
				return err
			}
			if err := sc.value(depth + 1); err != nil {
				return err
			}
			c, err = sc.nonSpace()
			switch {
			case err != nil:
				return err
			case c == end:
				return nil
			case c != ',':
				return errNotJSON
			}
		}
	}
	return errNotJSON
}

// firstNonSpace skips white space and returns the first other byte, unread, and how many line
// ends it skipped.
func firstNonSpace(br *bufio.Reader) (first byte, lines int, err error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, lines, err
		}
		switch b {
		case '\n':
			lines++
			continue
		case ' ', '\t', '\r', 0xEF, 0xBB, 0xBF: // a UTF-8 byte order mark too
			continue
		}
		return b, lines, br.UnreadByte()
	}
}

// yamlTopLevelSchema finds the top-level schema key of the first YAML document: a line at column
// 0 reading `schema: VALUE` (any case), before the document ends; at counts the lines read before
// it. Of a line longer than br's buffer it reads the start only (a schema line is short), so that
// an endless line costs no memory.
func yamlTopLevelSchema(br *bufio.Reader) (schema string, at int) {
	started := false
	for ; ; at++ {
		line, err := readLineStart(br)
		trimmed := strings.TrimRight(line, " \t\r\n")
		switch {
		case trimmed == "---" || strings.HasPrefix(trimmed, "--- "):
			if started {
				return "", 0
			}
		case trimmed == "...":
			return "", 0
		case trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "%"):
		default:
			started = true
			if v, ok := yamlSchemaValue(trimmed); ok {
				return v, at
			}
		}
		if err != nil {
			return "", 0
		}
	}
}

// readLineStart reads a line of br, up to its line end, and returns as much of it as br's buffer
// holds; the rest of a longer line is read and dropped.
func readLineStart(br *bufio.Reader) (string, error) {
	b, err := br.ReadSlice('\n')
	line := string(b)
	for err == bufio.ErrBufferFull {
		_, err = br.ReadSlice('\n')
	}
	return line, err
}

func yamlSchemaValue(line string) (string, bool) {
	key, value, ok := strings.Cut(line, ":")
	if !ok || key == "" || strings.ContainsAny(key[:1], " \t-") {
		return "", false
	}
	if !strings.EqualFold(strings.Trim(key, `"' `), "schema") {
		return "", false
	}
	value = strings.TrimSpace(value)
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	return strings.Trim(value, `"'`), true
}

// templateFile reports whether the FBC file at path is a catalog template, reading its first
// document only.
func templateFile(path string) (string, bool, error) {
	schema, _, err := firstSchemaOf(path)
	if err != nil || !slices.Contains(fbc.TemplateSchemas, schema) {
		return "", false, err
	}
	return schema, true, nil
}

// firstSchemaOf is firstSchema of the file at path.
func firstSchemaOf(path string) (string, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	schema, line := firstSchema(f)
	return schema, line, nil
}

// openIfTemplate opens the FBC file at path (the reference's file, or the spool of a stream) as
// the catalog template it is, rendered; isTemplate false when it is not one. A file that is no
// template but looks meant to be one is an error (see notQuiteTemplate).
func (s *Source) openIfTemplate(ctx context.Context, path string) (isTemplate bool, err error) {
	schema, line, err := firstSchemaOf(path)
	if err != nil {
		return false, classify(s.ref.Raw, err)
	}
	if !slices.Contains(fbc.TemplateSchemas, schema) {
		return false, s.notQuiteTemplate(schema, line)
	}
	data, err := ReadInput(ctx, path, nil, int64(fbc.BlobLimit()))
	if e, ok := err.(*Error); ok {
		e.Ref = s.ref.Raw // not a spool's name
	}
	if err != nil {
		return true, classify(s.ref.Raw, err)
	}
	return true, s.openTemplate(ctx, schema, data)
}

// openTemplate renders the template data (schema schema) and keeps the rendered catalog as the
// source's stream.
func (s *Source) openTemplate(ctx context.Context, schema string, data []byte) error {
	raw := s.ref.Raw
	if s.opts.Templates == nil {
		return &Error{Ref: raw, Problem: BadTemplate, Detail: fmt.Sprintf("a catalog template (schema %s), which is not rendered here", schema),
			Hint: "render it with olmcat render-template and give the rendered catalog"}
	}
	bundles := s.opts.Bundles
	if bundles == nil {
		bundles = BundleImages(s.opts.Images)
	}
	rendered, locs, err := s.opts.Templates(ctx, data, s.streamName(), bundles)
	if err != nil {
		return templateError(raw, schema, err)
	}
	sp, err := s.spoolBytes(rendered)
	if err != nil {
		return err
	}
	s.format, s.stream, s.template, s.templateLocs = FormatFBC, sp, schema, locs
	return s.checkNotEmpty(ctx)
}

// templateError words a template that could not be rendered. A bundle image that could not be
// pulled is named with its registry.
func templateError(ref, schema string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if imgs := template.AllImageErrors(err); len(imgs) > 0 {
		return UnreadImages(ref, imgs, err)
	}
	e := &Error{Ref: ref, Problem: BadTemplate, Detail: fmt.Sprintf("rendering the %s template: %v", schema, err), Err: err}
	var entry *template.BundleEntryError
	if errors.As(err, &entry) {
		e.Hint = entry.Advice()
	}
	return e
}

// UnreadImages is the error of a catalog template ref whose bundle images imgs could not be read
// (cause is the renderer's error): every image in one sentence, those that failed alike grouped
// with their reason, and what to do. render-template and every command that reads a template as a
// catalog reference say it in these words.
func UnreadImages(ref string, imgs []*template.ImageError, cause error) *Error {
	type group struct {
		reason string
		refs   []string
	}
	var groups []*group
	byReason := map[string]*group{}
	var held []string // the images a --bundles-from catalog holds as olm.csv.metadata
	heldBy := ""
	seen := map[string]bool{}
	for _, img := range imgs {
		if seen[img.Ref] {
			continue
		}
		seen[img.Ref] = true
		reason := img.Err.Error()
		if img.Registry != "" {
			reason = img.Registry + ": " + reason
		}
		if img.HeldBy != "" {
			reason = fmt.Sprintf("in --bundles-from %s as %s, not what this render prints, so pulled: %s", img.HeldBy, img.HeldAs, reason)
			if img.HeldAs == property.TypeCSVMetadata {
				held = append(held, img.Ref)
				heldBy = img.HeldBy
			}
		}
		g := byReason[reason]
		if g == nil {
			g = &group{reason: reason}
			byReason[reason] = g
			groups = append(groups, g)
		}
		g.refs = append(g.refs, img.Ref)
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%s (%s)", strings.Join(g.refs, ", "), g.reason)
	}
	hint := "check the references; log in with docker login or podman login; for a plain-HTTP registry pass --use-http, for an untrusted certificate --skip-tls-verify; or take the bundles a catalog already has with --bundles-from CATALOG"
	var refused *indeximage.RefusedError
	isRefused := func(img *template.ImageError) bool { return errors.As(img.Err, &refused) && !refused.OverlapsOutput() }
	overlapsOutput := func(img *template.ImageError) bool { return errors.As(img.Err, &refused) && refused.OverlapsOutput() }
	if slices.ContainsFunc(imgs, overlapsOutput) {
		hint = "write the output elsewhere, or keep the template's local bundle images apart from the command's outputs"
	} else if slices.ContainsFunc(imgs, isRefused) {
		// A template may come from a pull request: what it may reach, the command line says.
		refusedHint := "a template may name only registries on public addresses unless the command line allows more: pass --allow-registry HOST[:PORT] (or a CIDR, or localhost) for a registry you trust, --allow-local-images for oci-layout: and docker-archive: paths, or take the bundles from a catalog with --bundles-from CATALOG"
		if !slices.ContainsFunc(imgs, func(img *template.ImageError) bool { return !isRefused(img) }) {
			hint = refusedHint
		} else {
			hint = refusedHint + "; for the others, " + hint
		}
	}
	if len(held) > 0 {
		hint = fmt.Sprintf("--bundles-from %s holds %s as %s, which is printed with --migrate-level bundle-object-to-csv-metadata only: give that flag when the catalog is rendered so, to take %s from it; else %s",
			heldBy, plural.Of(len(held), "bundle"), property.TypeCSVMetadata, itThem(len(held)), hint)
	}
	return &Error{Ref: ref, Problem: UnreadBundleImages, Detail: fmt.Sprintf("%s: %s", plural.Of(len(seen), "image"), strings.Join(parts, "; ")),
		Hint: hint, Err: cause}
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// Template is the schema of the catalog template the source was rendered from, "" when it was
// not a template.
func (s *Source) Template() string { return s.template }

// BundleImages is the plain BundleRenderer: one bundle image after the other, no cache. Commands
// give a faster one (internal/bundlefetch) in Options.Bundles.
func BundleImages(opts indeximage.Options) template.BundleRenderer { return sequentialBundles(opts) }

type sequentialBundles indeximage.Options

func (o sequentialBundles) RenderBundles(ctx context.Context, refs []string) ([]fbc.Bundle, error) {
	out := make([]fbc.Bundle, 0, len(refs))
	for _, ref := range refs {
		b, err := RenderBundleImage(ctx, ref, indeximage.Options(o))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// RenderBundleImage renders the bundle image ref as `opm render ref` does (its Image is ref as
// written). Like opm rendering a template, it reads bundle images only: a local directory, an
// index image or anything else is an error. opts.Untrusted, when set, refuses local paths and
// private registries before anything is read (every template bundle pull passes here or through
// bundlefetch, which checks the same). Every error is a *template.ImageError.
func RenderBundleImage(ctx context.Context, ref string, opts indeximage.Options) (fbc.Bundle, error) {
	imgErr := func(err error) error { return BundleImageError(ref, err) }
	if err := opts.CheckUntrusted(ref); err != nil {
		return fbc.Bundle{}, imgErr(err)
	}
	if !indeximage.IsImageRef(ref) {
		return fbc.Bundle{}, imgErr(errors.New("not an image reference: a template names bundle images (REGISTRY/REPOSITORY:TAG or @DIGEST), as opm renders them"))
	}
	img, err := pullBundle(ctx, ref, opts)
	if err != nil {
		return fbc.Bundle{}, imgErr(err)
	}
	b, err := ParseImageBundle(ref, img)
	if err != nil {
		return fbc.Bundle{}, imgErr(err)
	}
	rendered, err := b.Render(ref)
	if err != nil {
		return fbc.Bundle{}, imgErr(err)
	}
	return rendered, nil
}

// BundleImageError is the error of a bundle image ref that a template names and that could not be
// pulled or read: its cause says why once, without the reference the messages of the image layer
// repeat ("REF: bad image: image REF: ...").
func BundleImageError(ref string, err error) *template.ImageError {
	why := err.Error()
	var inner *Error
	if errors.As(err, &inner) && inner.Detail != "" {
		why = inner.Detail
	}
	for _, repeated := range []string{ref + ": ", "image " + ref + ": ", "image " + ref + " "} {
		why = strings.TrimPrefix(why, repeated)
	}
	var cause error = err
	if why != err.Error() {
		cause = &imageCause{why: why, err: err}
	}
	registry := ""
	if indeximage.IsImageRef(ref) {
		registry = indeximage.RegistryHost(ref)
	}
	return &template.ImageError{Ref: ref, Registry: registry, Err: cause}
}

// imageCause is why a bundle image could not be read, in words, keeping the error it came from.
type imageCause struct {
	why string
	err error
}

func (c *imageCause) Error() string { return c.why }

func (c *imageCause) Unwrap() error { return c.err }

// errNotOnlyTemplates stops the walk of refuseTemplateDir at the first blob of a catalog.
var errNotOnlyTemplates = errors.New("not only templates")

// refuseTemplateDir refuses a directory whose catalog files are all catalog templates (a
// repository's operators/P/catalog-templates/): each template renders to a catalog of its own
// (typically one per OpenShift version), so reading them as one FBC of template-schema blobs, or
// rendering them into one catalog, would be wrong. The walk stops at the first blob that is not a
// template's, so an FBC directory costs one blob.
func (s *Source) refuseTemplateDir(ctx context.Context) error {
	templates := map[string]bool{}
	err := s.walkFBC(ctx, func(b fbc.Blob) error {
		if !slices.Contains(fbc.TemplateSchemas, b.Schema) {
			return errNotOnlyTemplates
		}
		templates[b.Loc.File] = true
		return nil
	})
	var lerrs *fbc.LoadErrors
	switch {
	case errors.As(err, &lerrs):
		// A template the loader cannot read as a blob (`Schema:`, as opm accepts it) is still a
		// template; any other problem is the catalog's.
		for _, e := range lerrs.Errs {
			if _, ok, _ := templateFile(filepath.Join(s.path, filepath.FromSlash(e.Loc.File))); !ok {
				return nil
			}
			templates[e.Loc.File] = true
		}
		if lerrs.Omitted > 0 {
			return nil
		}
	case err != nil:
		return nil // a catalog, or a problem the emptiness check words
	}
	if len(templates) == 0 {
		return nil
	}
	files := slices.Sorted(maps.Keys(templates))
	shown := files
	if len(shown) > 5 {
		shown = append(slices.Clone(shown[:5]), "...")
	}
	example := strings.TrimSuffix(s.ref.Raw, "/") + "/" + files[len(files)-1]
	return &Error{Ref: s.ref.Raw, Problem: NotACatalog,
		Detail: fmt.Sprintf("a directory of %s (%s), each a catalog of its own", plural.Of(len(files), "catalog template"), strings.Join(shown, ", ")),
		Hint:   "name one template file, e.g. " + example + ", as opm alpha render-template renders one template at a time"}
}
