package source

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/indeximage"
)

// A catalog template (olm.template.basic, olm.semver, olm.template.substitutes) is a catalog
// reference like any other: a file, a git:REV:PATH file or standard input whose first document
// has a template schema is rendered when it is opened, and the Source is the rendered catalog.

// TemplateRenderer renders a catalog template into a catalog: data is the template as read, name
// how messages name it, bundles renders the bundle images the template names. The result is an FBC
// stream (JSON or YAML documents).
type TemplateRenderer func(ctx context.Context, data []byte, name string, bundles template.BundleRenderer) ([]byte, error)

// TemplateSchemas are the schemas of the catalog templates opm renders.
var TemplateSchemas = []string{"olm.template.basic", "olm.semver", "olm.template.substitutes"}

// TemplateSchema reads the schema of the first document of r, a YAML or JSON stream, and returns
// it when it is a template schema. As in opm, the key is matched case-insensitively (`Schema:`
// works) and only the first document counts. It reads no further than the first document.
func TemplateSchema(r io.Reader) (string, bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstNonSpace(br)
	if err != nil {
		return "", false
	}
	var schema string
	if first == '{' {
		var doc struct{ Schema string } // encoding/json matches keys case-insensitively, as opm's detection does
		if json.NewDecoder(br).Decode(&doc) != nil {
			return "", false
		}
		schema = doc.Schema
	} else {
		schema = yamlTopLevelSchema(br)
	}
	for _, s := range TemplateSchemas {
		if schema == s {
			return s, true
		}
	}
	return "", false
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n', 0xEF, 0xBB, 0xBF: // a UTF-8 byte order mark too
			continue
		}
		return b, br.UnreadByte()
	}
}

// yamlTopLevelSchema finds the top-level schema key of the first YAML document: a line at column
// 0 reading `schema: VALUE` (any case), before the document ends.
func yamlTopLevelSchema(br *bufio.Reader) string {
	started := false
	for {
		line, err := br.ReadString('\n')
		trimmed := strings.TrimRight(line, " \t\r\n")
		switch {
		case trimmed == "---" || strings.HasPrefix(trimmed, "--- "):
			if started {
				return ""
			}
		case trimmed == "...":
			return ""
		case trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "%"):
		default:
			started = true
			if v, ok := yamlSchemaValue(trimmed); ok {
				return v
			}
		}
		if err != nil {
			return ""
		}
	}
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
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	schema, ok := TemplateSchema(f)
	return schema, ok, nil
}

// openIfTemplate opens the FBC file at path (the reference's file, or the spool of a stream) as
// the catalog template it is, rendered; isTemplate false when it is not one.
func (s *Source) openIfTemplate(ctx context.Context, path string) (isTemplate bool, err error) {
	schema, ok, err := templateFile(path)
	if err != nil || !ok {
		return false, classify(s.ref.Raw, err)
	}
	data, err := ReadInput(ctx, path, nil, fbc.DefaultMaxBlobSize)
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
	rendered, err := s.opts.Templates(ctx, data, s.streamName(), bundles)
	if err != nil {
		return templateError(raw, schema, err)
	}
	sp, err := s.spoolBytes(rendered)
	if err != nil {
		return err
	}
	s.format, s.stream, s.template = FormatFBC, sp, schema
	return s.checkNotEmpty(ctx)
}

// templateError words a template that could not be rendered. A bundle image that could not be
// pulled is named with its registry.
func templateError(ref, schema string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var img *template.ImageError
	if errors.As(err, &img) {
		reason := img.Err
		var inner *Error
		if errors.As(reason, &inner) {
			reason = errors.New(inner.Detail)
		}
		detail := fmt.Sprintf("rendering the %s template: bundle image %s", schema, img.Ref)
		if img.Registry != "" {
			detail += " from registry " + img.Registry
		}
		why := strings.TrimPrefix(strings.TrimPrefix(reason.Error(), "image "+img.Ref+": "), "image "+img.Ref+" ")
		return &Error{Ref: ref, Problem: BadImage, Detail: detail + ": " + why, Err: err,
			Hint: "check the reference; log in with docker login or podman login; for a plain-HTTP registry pass --use-http, for an untrusted certificate --skip-tls-verify"}
	}
	return &Error{Ref: ref, Problem: BadTemplate, Detail: fmt.Sprintf("rendering the %s template: %v", schema, err), Err: err}
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
// index image or anything else is an error. Every error is a *template.ImageError.
func RenderBundleImage(ctx context.Context, ref string, opts indeximage.Options) (fbc.Bundle, error) {
	imgErr := func(err error) error {
		return &template.ImageError{Ref: ref, Registry: indeximage.RegistryHost(ref), Err: err}
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
