// Package fbc holds the serialized form of a File-Based Catalog: the blobs exactly as they stand in
// JSON or YAML files, with the place each came from. It knows nothing of what makes a catalog valid;
// that is fbc/model's business.
package fbc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/internal/bytepool"
)

// The core schemas of a File-Based Catalog.
const (
	SchemaPackage      = "olm.package"
	SchemaChannel      = "olm.channel"
	SchemaBundle       = "olm.bundle"
	SchemaDeprecations = "olm.deprecations"
)

// The schemas of catalog templates (package fbc/template). A template is a source a catalog is
// rendered from, never a blob of one.
const (
	SchemaTemplateBasic       = "olm.template.basic"
	SchemaTemplateSemver      = "olm.semver"
	SchemaTemplateSubstitutes = "olm.template.substitutes"
)

// TemplateSchemas are the schemas of the catalog templates opm renders.
var TemplateSchemas = []string{SchemaTemplateBasic, SchemaTemplateSemver, SchemaTemplateSubstitutes}

// Location is where a blob was read from. It is never serialized.
type Location struct {
	File string // path as given by the loader (relative to the catalog root where there is one)
	Line int    // 1-based line of the blob's first character; 0 when unknown
}

func (l Location) String() string {
	switch {
	case l.File == "" && l.Line == 0:
		return "<unknown>"
	case l.Line == 0:
		return l.File
	default:
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	}
}

// Catalog is a whole File-Based Catalog: every blob, grouped by schema, in load order.
type Catalog struct {
	Packages     []Package
	Channels     []Channel
	Bundles      []Bundle
	Deprecations []Deprecation
	Others       []Meta
}

// Property is one typed property of a package, channel or bundle; Value is kept as raw JSON so that
// unknown property types survive a load/write round trip untouched.
type Property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Icon is a package icon.
type Icon struct {
	Data      []byte `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// Package is an olm.package blob.
type Package struct {
	Schema         string
	Name           string
	DefaultChannel string
	Icon           *Icon
	Description    string
	Properties     []Property
	Extra          Extra
	Loc            Location
}

// Channel is an olm.channel blob.
type Channel struct {
	Schema     string
	Name       string
	Package    string
	Entries    []ChannelEntry
	Properties []Property
	Extra      Extra
	Loc        Location
}

// ChannelEntry is one upgrade-graph node of a channel.
type ChannelEntry struct {
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	Extra     Extra
}

// Bundle is an olm.bundle blob.
type Bundle struct {
	Schema        string
	Name          string
	Package       string
	Image         string
	Properties    []Property
	RelatedImages []RelatedImage
	Extra         Extra
	Loc           Location

	deferred []byte        // the blob of a bundle not decoded yet (Loader.DeferBundle)
	builder  BundleBuilder // what builds a bundle not built yet (DeferredBundle)
}

// BundleBuilder builds bundles that a reader left unbuilt (DeferredBundle): the bundles of one
// package named, several at a time, so that a reader of an index.db reads their rows at once.
type BundleBuilder interface {
	// BuildBundles returns the bundles named, in that order.
	BuildBundles(names []string) ([]Bundle, error)
}

// DeferredBundle is a bundle of which only the schema, name, package and location are known:
// Decode and DecodeBundles have by build the rest of it.
func DeferredBundle(name, pkg string, loc Location, by BundleBuilder) Bundle {
	return Bundle{Schema: SchemaBundle, Name: name, Package: pkg, Loc: loc, builder: by}
}

// Deferred reports whether the bundle is not decoded yet (see Loader.DeferBundle and
// DeferredBundle): only its schema, name, package and location are set.
func (b *Bundle) Deferred() bool { return b.deferred != nil || b.builder != nil }

// Decode decodes a deferred bundle in place (nothing for one already decoded). A blob that does
// not decode gives the *LoadError Catalog.Add would give, and leaves the bundle deferred.
func (b *Bundle) Decode() error {
	if b.builder != nil {
		return DecodeBundles([]*Bundle{b})
	}
	if b.deferred == nil {
		return nil
	}
	c := &Catalog{}
	if err := c.Add(Blob{Schema: b.Schema, Package: b.Package, Name: b.Name, Data: b.deferred, Loc: b.Loc}); err != nil {
		return err
	}
	*b = c.Bundles[0]
	return nil
}

// DecodeBundles decodes the deferred bundles among bs in place, those of one BundleBuilder with
// one call. The first error is returned; the bundles it concerns stay deferred.
func DecodeBundles(bs []*Bundle) error {
	byBuilder := map[BundleBuilder][]*Bundle{}
	var order []BundleBuilder
	for _, b := range bs {
		switch {
		case b.builder != nil:
			if byBuilder[b.builder] == nil {
				order = append(order, b.builder)
			}
			byBuilder[b.builder] = append(byBuilder[b.builder], b)
		case b.deferred != nil:
			if err := b.Decode(); err != nil {
				return err
			}
		}
	}
	for _, by := range order {
		group := byBuilder[by]
		names := make([]string, len(group))
		for i, b := range group {
			names[i] = b.Name
		}
		built, err := by.BuildBundles(names)
		if err != nil {
			return err
		}
		if len(built) != len(group) {
			return fmt.Errorf("building bundles %s: %d built for %d asked", strings.Join(names, ", "), len(built), len(group))
		}
		for i, b := range group {
			loc := b.Loc
			*b = built[i]
			b.Loc = loc
		}
	}
	return nil
}

// ReleaseDeferred gives the blobs of the deferred bundles among bs (Loader.DeferBundle) back to
// bytepool, for the loader to read the next ones into, and leaves those bundles without them (as
// bundles that are not deferred, with nothing but their schema, name, package and location). For
// a caller done with bundles it never decoded, such as a filter's left-out ones: nothing may
// still use their blobs, nor a copy of these Bundle values made before.
func ReleaseDeferred(bs []Bundle) {
	for i := range bs {
		if bs[i].deferred != nil {
			bytepool.Put(bs[i].deferred)
			bs[i].deferred = nil
		}
	}
}

// RelatedImage is an image a bundle needs.
type RelatedImage struct {
	Name  string
	Image string
	Extra Extra
}

// Deprecation is an olm.deprecations blob.
type Deprecation struct {
	Schema  string
	Package string
	Entries []DeprecationEntry
	Extra   Extra
	Loc     Location
}

// DeprecationEntry deprecates the package, one channel or one bundle.
type DeprecationEntry struct {
	Reference Reference
	Message   string
	Extra     Extra
}

// Reference names what a deprecation entry is about: Schema is olm.package, olm.channel or olm.bundle;
// Name is empty for olm.package.
type Reference struct {
	Schema string
	Name   string
	Extra  Extra
}

// Meta is a blob of any other schema, kept verbatim.
type Meta struct {
	Schema  string
	Package string
	Name    string
	Blob    json.RawMessage
	Loc     Location
}

// Extra holds the fields of an object that this version of olmcat does not know, so that writing
// a loaded catalog gives them back. Keys are written after the known fields, in sorted order.
type Extra map[string]json.RawMessage

// Append adds every blob of other to c, keeping their order.
func (c *Catalog) Append(other *Catalog) {
	c.Packages = append(c.Packages, other.Packages...)
	c.Channels = append(c.Channels, other.Channels...)
	c.Bundles = append(c.Bundles, other.Bundles...)
	c.Deprecations = append(c.Deprecations, other.Deprecations...)
	c.Others = append(c.Others, other.Others...)
}

// Where names the file (and line) of the catalog's package blob, else of its first blob of
// another schema that has a location, for a message about the package as a whole; "" when no blob
// has one.
func (c *Catalog) Where() string {
	if l := c.firstLocation(); l != (Location{}) {
		return l.String()
	}
	return ""
}

func (c *Catalog) firstLocation() Location {
	for _, p := range c.Packages {
		if p.Loc != (Location{}) {
			return p.Loc
		}
	}
	for _, ch := range c.Channels {
		if ch.Loc != (Location{}) {
			return ch.Loc
		}
	}
	for _, b := range c.Bundles {
		if b.Loc != (Location{}) {
			return b.Loc
		}
	}
	for _, d := range c.Deprecations {
		if d.Loc != (Location{}) {
			return d.Loc
		}
	}
	for _, m := range c.Others {
		if m.Loc != (Location{}) {
			return m.Loc
		}
	}
	return Location{}
}
