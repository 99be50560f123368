package template

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// renderBasic loads the entries as FBC and replaces every olm.bundle entry, which names only an
// image, by the bundle rendered from it, in entry order. Nothing else is touched nor validated.
func renderBasic(ctx context.Context, t *Basic, src *bundleSource, loc locator) (*fbc.Catalog, error) {
	cat, err := loadEntries(t.Entries, loc)
	if err != nil {
		return nil, err
	}
	valid := renderablePrefix(cat)
	refs := make([]string, 0, valid)
	for _, b := range cat.Bundles[:valid] {
		refs = append(refs, b.Image)
	}
	if err := src.render(ctx, refs); err != nil {
		return nil, err
	}
	if valid < len(cat.Bundles) {
		return nil, bundleEntryError(cat.Bundles[valid], entryLine(t.Entries, valid, loc))
	}
	for i, ref := range refs {
		b := src.get(ref).bundle
		b.Loc = cat.Bundles[i].Loc
		cat.Bundles[i] = b
	}
	dropUnknownFields(cat)
	return cat, nil
}

// isBundleTemplate is opm's test for a basic template's bundle entry: an image, and no package,
// properties or related images.
func isBundleTemplate(b fbc.Bundle) bool {
	return b.Schema != "" && b.Image != "" && b.Package == "" && len(b.Properties) == 0 && len(b.RelatedImages) == 0
}

// BundleEntryError is a basic template's olm.bundle entry that is not {schema, image}: opm's
// message, and which entry it is and what is wrong with it, for the line that says what to do.
type BundleEntryError struct {
	Line    int      // the entry's line in the template, 0 when unknown
	Image   string   // the entry's image, "" when it has none
	Extra   []string // the fields it has besides schema and image: package, properties, relatedImages
	NoImage bool
}

func (e *BundleEntryError) Error() string {
	return "unexpected fields present in basic template bundle"
}

// Advice names the entry and says what to do: "line 18: this olm.bundle entry has no image: ...".
func (e *BundleEntryError) Advice() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString("this olm.bundle entry")
	if e.Image != "" {
		fmt.Fprintf(&b, " (image %s)", e.Image)
	}
	var has, do []string
	if e.NoImage {
		has, do = append(has, "no image"), append(do, "give it its bundle image")
	}
	if len(e.Extra) > 0 {
		has, do = append(has, strings.Join(e.Extra, ", ")), append(do, "keep only schema and image")
	}
	fmt.Fprintf(&b, " has %s: a basic template names each bundle by its image only, {schema: olm.bundle, image: REF}, as convert-template basic writes it; %s",
		strings.Join(has, " and "), strings.Join(do, " and "))
	return b.String()
}

func bundleEntryError(b fbc.Bundle, line int) error {
	e := &BundleEntryError{Line: line, Image: b.Image, NoImage: b.Image == ""}
	if b.Package != "" {
		e.Extra = append(e.Extra, "package")
	}
	if len(b.Properties) > 0 {
		e.Extra = append(e.Extra, "properties")
	}
	if len(b.RelatedImages) > 0 {
		e.Extra = append(e.Extra, "relatedImages")
	}
	return e
}

// entryLine is the line of the n-th olm.bundle entry (from 0) in the template, 0 when unknown.
func entryLine(entries []json.RawMessage, n int, loc locator) int {
	for i, e := range entries {
		var head struct {
			Schema string `json:"schema"`
		}
		if json.Unmarshal(e, &head) != nil || head.Schema != fbc.SchemaBundle {
			continue
		}
		if n == 0 {
			return at(loc.lines.Entries, i)
		}
		n--
	}
	return 0
}

// renderablePrefix is how many of cat's bundle entries are rendered: opm renders entry after entry
// and stops at the first bundle entry that is more than an image, so the images before it are
// rendered (and may fail) first.
func renderablePrefix(cat *fbc.Catalog) int {
	for i, b := range cat.Bundles {
		if !isBundleTemplate(b) {
			return i
		}
	}
	return len(cat.Bundles)
}
