package template

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
)

// Options tune rendering.
type Options struct {
	// CSVMetadata applies opm's bundle-object-to-csv-metadata migration (--migrate-level) to the
	// bundles rendered from images, never to blobs copied from the template.
	CSVMetadata bool
	// File is the name the template is known by: the rendered blobs are located in it, at the
	// line of the template part they came from (Template.Lines), when that line is known. ""
	// locates nothing.
	File string
}

// Render renders a template into a catalog as `opm alpha render-template` does, taking the bundles
// its images hold from r. Each distinct image is asked for once. Errors carry opm's message
// ("rendering template: ...").
func Render(ctx context.Context, t *Template, r BundleRenderer, opts Options) (*fbc.Catalog, error) {
	src := &bundleSource{renderer: r, opts: opts, rendered: map[string]renderedBundle{}}
	loc := locator{file: opts.File, lines: t.Lines}
	if loc.lines == nil {
		loc.lines = &Lines{}
	}
	var (
		cat *fbc.Catalog
		err error
	)
	switch {
	case t.Basic != nil:
		cat, err = renderBasic(ctx, t.Basic, src, loc)
	case t.Semver != nil:
		cat, err = renderSemver(ctx, t.Semver, src, loc)
	case t.Substitutes != nil:
		cat, err = renderSubstitutes(ctx, t.Substitutes, src, loc)
	default:
		err = errors.New("empty template")
	}
	if err != nil {
		return nil, &RenderError{Err: err}
	}
	return cat, nil
}

// RenderError is a template that could not be rendered; Err says why (an *ImageError among the
// causes when a bundle image could not be read).
type RenderError struct{ Err error }

func (e *RenderError) Error() string { return "rendering template: " + e.Err.Error() }
func (e *RenderError) Unwrap() error { return e.Err }

// bundleSource renders each distinct image once, applies the migration, and keeps each bundle's
// ClusterServiceVersion (semver takes the package icon and description from it).
type bundleSource struct {
	renderer BundleRenderer
	opts     Options
	rendered map[string]renderedBundle
	// parseProperties parses each bundle's properties as it is rendered (semver templates read
	// every bundle's version).
	parseProperties bool
}

type renderedBundle struct {
	bundle fbc.Bundle
	csv    []byte
	// meta is the bundle's olm.csv.metadata when it has no CSV (taken from a catalog in that
	// form), nil otherwise.
	meta *csvmeta.Metadata
	// props are the bundle's properties parsed (property.Parse), when the template asked for
	// them (parseProperties).
	props    *property.Parsed
	propsErr error
}

// render asks the renderer for every ref not rendered yet, in one call.
func (s *bundleSource) render(ctx context.Context, refs []string) error {
	var missing []string
	seen := map[string]bool{}
	for _, ref := range refs {
		if _, ok := s.rendered[ref]; !ok && !seen[ref] {
			seen[ref] = true
			missing = append(missing, ref)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	bundles, err := s.renderer.RenderBundles(ctx, missing)
	if err != nil {
		var img *ImageError
		switch {
		case errors.As(err, &img):
			return fmt.Errorf("render reference %q: %w", img.Ref, err)
		case len(missing) == 1:
			return fmt.Errorf("render reference %q: %w", missing[0], err)
		}
		return err
	}
	if len(bundles) != len(missing) {
		return fmt.Errorf("rendering %d bundle images gave %d bundles", len(missing), len(bundles))
	}
	// Finding the CSV, migrating and parsing properties decode every bundle object: done on
	// every core, the first error in the order of refs returned.
	prepared := make([]renderedBundle, len(missing))
	errs := make([]error, len(missing))
	eachOnAllCores(len(missing), func(i int) {
		b := bundles[i]
		if s.parseProperties && !s.opts.CSVMetadata {
			// The properties parsed decode every bundle object already: the CSV is found among
			// them rather than by decoding them all a second time.
			props, err := property.Parse(b.Properties)
			var csv []byte
			if err == nil {
				csv = csvmeta.FindCSV(objectData(props.BundleObjects))
			} else {
				csv = csvmeta.BundleCSV(&b) // the objects that do decode, as BundleCSV finds the CSV among them
			}
			prepared[i] = renderedBundle{bundle: b, csv: csv, props: props, propsErr: err}
			if csv == nil {
				prepared[i].meta = csvMetadataOf(b)
			}
			return
		}
		csv := csvmeta.BundleCSV(&b)
		if s.opts.CSVMetadata {
			if err := csvmeta.Migrate(&b, csv); err != nil {
				errs[i] = fmt.Errorf("render reference %q: migrate bundle %q to olm.csv.metadata: %v", missing[i], b.Name, err)
				return
			}
		}
		prepared[i] = renderedBundle{bundle: b, csv: csv}
		if csv == nil {
			prepared[i].meta = csvMetadataOf(b)
		}
		if s.parseProperties {
			prepared[i].props, prepared[i].propsErr = property.Parse(b.Properties)
		}
	})
	for i, ref := range missing {
		if errs[i] != nil {
			return errs[i]
		}
		s.rendered[ref] = prepared[i]
	}
	return nil
}

// eachOnAllCores calls fn(0) .. fn(n-1), as many at once as there are cores.
func eachOnAllCores(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

func (s *bundleSource) get(ref string) renderedBundle { return s.rendered[ref] }

// objectData is the data of the objects that have any, as csvmeta.BundleCSV gathers them.
func objectData(objs []property.BundleObject) [][]byte {
	var data [][]byte
	for _, o := range objs {
		if len(o.Data) > 0 {
			data = append(data, o.Data)
		}
	}
	return data
}

// csvMetadataOf is a bundle's olm.csv.metadata, nil if it has none that decodes.
func csvMetadataOf(b fbc.Bundle) *csvmeta.Metadata {
	for _, p := range b.Properties {
		if p.Type != property.TypeCSVMetadata {
			continue
		}
		var m csvmeta.Metadata
		if json.Unmarshal(p.Value, &m) == nil {
			return &m
		}
	}
	return nil
}

// locator locates rendered blobs in their template.
type locator struct {
	file  string
	lines *Lines
}

// at is the location of a template part starting at line (unknown when 0, or when the template
// has no name).
func (l locator) at(line int) fbc.Location {
	if line == 0 || l.file == "" {
		return fbc.Location{}
	}
	return fbc.Location{File: l.file, Line: line}
}

// loadEntries reads template entries as FBC blobs, in order, each located at its entry.
func loadEntries(entries []json.RawMessage, loc locator) (*fbc.Catalog, error) {
	cat := &fbc.Catalog{}
	for i, e := range entries {
		e, err := normalizeBlob(e)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %v", i, err)
		}
		var head struct {
			Schema  string `json:"schema"`
			Package string `json:"package"`
			Name    string `json:"name"`
		}
		if err := json.Unmarshal(e, &head); err != nil {
			return nil, fmt.Errorf("entry %d: %v", i, err)
		}
		if err := cat.Add(fbc.Blob{Schema: head.Schema, Package: head.Package, Name: head.Name, Data: e,
			Loc: loc.at(at(loc.lines.Entries, i))}); err != nil {
			return nil, err
		}
	}
	return cat, nil
}

// normalizeBlob is a blob as opm's declcfg.Meta keeps it: decoded into a map (numbers become
// float64) and encoded again, keys sorted, without HTML escaping.
func normalizeBlob(data []byte) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// dropUnknownFields clears the fields of the core schemas that opm's declcfg types do not have:
// opm does not write them back.
func dropUnknownFields(c *fbc.Catalog) {
	for i := range c.Packages {
		c.Packages[i].Extra = nil
	}
	for i := range c.Channels {
		c.Channels[i].Extra = nil
		for j := range c.Channels[i].Entries {
			c.Channels[i].Entries[j].Extra = nil
		}
	}
	for i := range c.Bundles {
		c.Bundles[i].Extra = nil
		for j := range c.Bundles[i].RelatedImages {
			c.Bundles[i].RelatedImages[j].Extra = nil
		}
	}
	for i := range c.Deprecations {
		c.Deprecations[i].Extra = nil
		for j := range c.Deprecations[i].Entries {
			c.Deprecations[i].Entries[j].Extra = nil
			c.Deprecations[i].Entries[j].Reference.Extra = nil
		}
	}
}

// Refs are the bundle images a template names, each once, in the order of the template.
func (t *Template) Refs() []string {
	var refs []string
	seen := map[string]bool{}
	add := func(ref string) {
		if !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	switch {
	case t.Basic != nil:
		if cat, err := loadEntries(t.Basic.Entries, locator{lines: &Lines{}}); err == nil {
			for _, b := range cat.Bundles {
				add(b.Image)
			}
		}
	case t.Semver != nil:
		for _, images := range [][]string{t.Semver.Candidate, t.Semver.Fast, t.Semver.Stable} {
			for _, ref := range images {
				add(ref)
			}
		}
	case t.Substitutes != nil:
		for _, s := range t.Substitutes.Substitutions {
			add(s.Name)
		}
	}
	return refs
}

// csvIcon is the package icon opm takes from a CSV (nil when it has none).
func csvIcon(csv []byte) *fbc.Icon {
	icon, err := csvmeta.PackageIcon(csv)
	if err != nil {
		return nil
	}
	return icon
}

// csvDescription is a CSV's spec.description.
func csvDescription(csv []byte) string {
	var doc struct {
		Spec struct {
			Description string `json:"description"`
		} `json:"spec"`
	}
	if json.Unmarshal(csv, &doc) != nil {
		return ""
	}
	return doc.Spec.Description
}
