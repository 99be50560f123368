package main

import (
	"bytes"
	"context"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/source"
)

// renderTemplate renders a catalog template that a command reads as a catalog reference
// (validate, diff, graph, serve, ...) into the catalog render-template prints (-o json), its
// blobs located at the template's lines.
var renderTemplate source.TemplateRenderer = func(ctx context.Context, data []byte, name string, bundles template.BundleRenderer) ([]byte, *template.Locations, error) {
	t, err := template.Parse("", data)
	if err != nil {
		return nil, nil, err
	}
	cat, err := template.Render(ctx, t, bundles, template.Options{File: name})
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	if err := template.Write(&out, cat, template.OutputJSON); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), template.LocationsOf(cat), nil
}
