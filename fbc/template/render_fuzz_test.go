package template_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fbc/template"
)

// tagRenderer makes a bundle from any reference REPO:TAG: package p, version TAG.
type tagRenderer struct{}

func (tagRenderer) RenderBundles(_ context.Context, refs []string) ([]fbc.Bundle, error) {
	out := make([]fbc.Bundle, 0, len(refs))
	for _, ref := range refs {
		tag := ref[strings.LastIndex(ref, ":")+1:]
		out = append(out, fbc.Bundle{Schema: fbc.SchemaBundle, Name: "p.v" + tag, Package: "p", Image: ref,
			Properties: []fbc.Property{property.Build(property.TypePackage, property.Package{PackageName: "p", Version: tag})}})
	}
	return out, nil
}

// FuzzRenderTemplate: any template that parses renders or gives an error, never a panic, and what
// it renders can be written in every format.
func FuzzRenderTemplate(f *testing.F) {
	f.Add("Schema: olm.semver\nGenerateMajorChannels: true\nStable: {Bundles: [{Image: r:1.0.0}, {Image: r:1.0.1}, {Image: r:1.1.0}, {Image: r:2.0.0}]}\nFast: {Bundles: [{Image: r:1.0.1}]}\n")
	f.Add("schema: olm.semver\ncandidate: {bundles: [{image: r:0.0.4}, {image: r:0.0.11}, {image: r:0.1.0+b}]}\n")
	f.Add(`{"schema":"olm.template.basic","entries":[{"schema":"olm.package","name":"p"},{"schema":"olm.channel","package":"p","name":"c","entries":[{"name":"p.v1.0.0"}]},{"schema":"olm.bundle","image":"r:1.0.0"}]}`)
	f.Add(`{"schema":"olm.template.substitutes","entries":[{"schema":"olm.package","name":"p","defaultChannel":"c"},{"schema":"olm.channel","package":"p","name":"c","entries":[{"name":"p.v1.0.0"},{"name":"p.v1.1.0","replaces":"p.v1.0.0"}]},` +
		`{"schema":"olm.bundle","name":"p.v1.0.0","package":"p","image":"r:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]},` +
		`{"schema":"olm.bundle","name":"p.v1.1.0","package":"p","image":"r:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.1.0"}}]}],` +
		`"substitutions":[{"name":"r:1.1.1","base":"p.v1.1.0"}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		tmpl, err := template.Parse("", []byte(doc))
		if err != nil {
			return
		}
		cat, err := template.Render(context.Background(), tmpl, tagRenderer{}, template.Options{})
		if err != nil {
			return
		}
		for _, format := range []string{"json", "yaml", "mermaid"} {
			_ = template.Write(&bytes.Buffer{}, cat, format)
		}
	})
}
