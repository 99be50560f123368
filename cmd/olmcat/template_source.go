package main

import (
	"bytes"
	"context"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// renderTemplate renders a catalog template that a command reads as a catalog reference
// (validate, diff, graph, serve, ...) into the catalog render-template prints (-o json), its
// blobs located at the template's lines.
var renderTemplate = renderTemplateAt(tofbc.LevelNone)

// renderTemplateAt is renderTemplate with a --migrate-level, which applies to the bundles the
// template renders from images as render-template applies it.
func renderTemplateAt(level tofbc.MigrateLevel) source.TemplateRenderer {
	return func(ctx context.Context, data []byte, name string, bundles template.BundleRenderer) ([]byte, *template.Locations, error) {
		t, err := template.Parse("", data)
		if err != nil {
			return nil, nil, err
		}
		cat, err := template.Render(ctx, t, bundles, template.Options{File: name, CSVMetadata: level == tofbc.LevelCSVMetadata})
		if err != nil {
			return nil, nil, err
		}
		var out bytes.Buffer
		if err := template.Write(&out, cat, template.OutputJSON); err != nil {
			return nil, nil, err
		}
		return out.Bytes(), template.LocationsOf(cat), nil
	}
}
