package template

import (
	"bytes"
	"strings"

	yamlnode "go.yaml.in/yaml/v3"

	"github.com/olmcat/olmcat/fbc"
)

// Lines are where the parts of a template start in its text (1-based; 0 when unknown), so that
// the blobs rendered from it can be located in the template rather than in the rendered stream.
type Lines struct {
	Document      int      // the first key of the first document
	Entries       []int    // each of entries (basic, substitutes)
	Substitutions []int    // each of substitutions (substitutes)
	Bundles       [3][]int // each bundle of candidate, fast and stable (semver)
}

// at is list[i], 0 when unknown.
func at(list []int, i int) int {
	if i < 0 || i >= len(list) {
		return 0
	}
	return list[i]
}

// findLines reads the lines of a template's parts from the first document of data. It is best
// effort: a document the node parser cannot read, or a part it cannot find, has no lines, and
// the blobs rendered from it stay located in the rendered stream. Aliases are not followed.
func findLines(data []byte) (lines *Lines) {
	defer func() {
		if recover() != nil {
			lines = nil
		}
	}()
	var doc yamlnode.Node
	if err := yamlnode.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil
	}
	root := &doc
	if root.Kind == yamlnode.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yamlnode.MappingNode {
		return nil
	}
	l := &Lines{Document: root.Line}
	if len(root.Content) > 0 {
		l.Document = root.Content[0].Line
	}
	l.Entries = itemLines(value(root, "entries"))
	l.Substitutions = itemLines(value(root, "substitutions"))
	for i, archetype := range archetypes {
		l.Bundles[i] = itemLines(value(value(root, archetype), "bundles"))
	}
	return l
}

// value is the value of key in a mapping node, matched without regard to case as encoding/json
// and opm's decoders match keys (the last one wins), nil when absent.
func value(m *yamlnode.Node, key string) *yamlnode.Node {
	if m == nil || m.Kind != yamlnode.MappingNode {
		return nil
	}
	var v *yamlnode.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			v = m.Content[i+1]
		}
	}
	return v
}

// itemLines are the lines of the items of a sequence node.
func itemLines(seq *yamlnode.Node) []int {
	if seq == nil || seq.Kind != yamlnode.SequenceNode {
		return nil
	}
	out := make([]int, len(seq.Content))
	for i, item := range seq.Content {
		out[i] = item.Line
	}
	return out
}

// Locations are where the blobs of a rendered catalog came from in their template, found again
// by the blobs' schema, package and name when the catalog is read back from the stream Write
// wrote (which keeps the order of blobs with the same identity).
type Locations struct {
	byKey map[blobKey][]fbc.Location
}

type blobKey struct{ schema, pkg, name string }

// LocationsOf records the locations of a rendered catalog's blobs; nil when none is known.
func LocationsOf(c *fbc.Catalog) *Locations {
	l := &Locations{byKey: map[blobKey][]fbc.Location{}}
	add := func(k blobKey, loc fbc.Location) {
		l.byKey[k] = append(l.byKey[k], loc)
	}
	known := false
	note := func(loc fbc.Location) fbc.Location {
		known = known || loc.Line > 0
		return loc
	}
	for _, p := range c.Packages {
		add(blobKey{fbc.SchemaPackage, "", p.Name}, note(p.Loc))
	}
	for _, ch := range c.Channels {
		add(blobKey{fbc.SchemaChannel, ch.Package, ch.Name}, note(ch.Loc))
	}
	for _, b := range c.Bundles {
		add(blobKey{fbc.SchemaBundle, b.Package, b.Name}, note(b.Loc))
	}
	for _, d := range c.Deprecations {
		add(blobKey{fbc.SchemaDeprecations, d.Package, ""}, note(d.Loc))
	}
	for _, m := range c.Others {
		add(blobKey{m.Schema, m.Package, m.Name}, note(m.Loc))
	}
	if !known {
		return nil
	}
	return l
}

// Locator gives the blobs of one pass over the written catalog, in stream order, their location
// in the template; false when it is not known (the blob keeps its place in the rendered stream).
func (l *Locations) Locator() func(b fbc.Blob) (fbc.Location, bool) {
	if l == nil {
		return func(fbc.Blob) (fbc.Location, bool) { return fbc.Location{}, false }
	}
	seen := map[blobKey]int{}
	return func(b fbc.Blob) (fbc.Location, bool) {
		k := blobKey{b.Schema, b.Package, b.Name}
		locs := l.byKey[k]
		n := seen[k]
		seen[k] = n + 1
		if n >= len(locs) || locs[n].Line == 0 {
			return fbc.Location{}, false
		}
		return locs[n], true
	}
}
