package template_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/templatetest"
)

// streamer gives the bundles of a BundleRenderer one by one, as a BundleStreamer, and records
// the refs it was asked for.
type streamer struct {
	template.BundleRenderer
	asked [][]string
}

func (s *streamer) RenderEach(ctx context.Context, refs []string, fn func(int, fbc.Bundle) error) error {
	s.asked = append(s.asked, refs)
	for i, ref := range refs {
		b, err := s.RenderBundles(ctx, []string{ref})
		if err != nil {
			return err
		}
		if err := fn(i, b[0]); err != nil {
			return err
		}
	}
	return nil
}

func renderStreamed(t *testing.T, tmpl *template.Template, r template.BundleRenderer, opts template.Options, format string) ([]byte, error) {
	t.Helper()
	rendered, err := template.RenderStreamed(context.Background(), tmpl, r, opts, format)
	if err != nil {
		return nil, err
	}
	defer rendered.Close()
	var out bytes.Buffer
	err = rendered.Write(&out)
	return out.Bytes(), err
}

// Streamed, the corpus's templates give opm's bytes and opm's errors, each image asked for once.
func TestRenderStreamedCorpus(t *testing.T) {
	for _, c := range templatetest.Cases(t, "render") {
		for _, run := range c.Runs {
			t.Run(c.ID+"/"+run.Expected, func(t *testing.T) {
				tmpl, err := template.Parse(run.Type, c.Read(t, run.File))
				if err != nil {
					t.Fatal(err)
				}
				s := &streamer{BundleRenderer: &templatetest.DirRenderer{Case: c}}
				opts := template.Options{CSVMetadata: run.MigrateLevel == "bundle-object-to-csv-metadata"}
				out, err := renderStreamed(t, tmpl, s, opts, run.Output)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, out, c.Read(t, run.Expected), c.Dir, run.Expected)
				if tmpl.Basic != nil && run.Output != template.OutputMermaid && len(s.asked) != 1 {
					t.Errorf("a basic template asked its renderer to stream %d times, want once", len(s.asked))
				}
			})
		}
	}
	for _, c := range templatetest.Cases(t, "errors") {
		for _, run := range c.Runs {
			t.Run(c.ID, func(t *testing.T) {
				want := templatetest.ComparableError(c.ErrorMessage(t))
				tmpl, err := template.Parse(run.Type, c.Read(t, run.File))
				if err == nil {
					_, err = renderStreamed(t, tmpl, &streamer{BundleRenderer: &templatetest.DirRenderer{Case: c}}, template.Options{}, template.OutputJSON)
				}
				if err == nil {
					t.Fatalf("no error; opm said %s", want)
				}
				if got := templatetest.ComparableError(err.Error()); got != want {
					t.Errorf("error\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

// A basic template of the shapes the corpus lacks (two packages, an image named twice, bundles
// of equal names, a bundle of no package, blobs of other schemas with and without a package,
// deprecations) is written streamed exactly as Render and Write write it, in json and yaml.
func TestRenderStreamedMatchesRender(t *testing.T) {
	bundle := func(name, pkg, image string) fbc.Bundle {
		obj, _ := json.Marshal(map[string]string{"data": "eyJraW5kIjoiQ29uZmlnTWFwIn0="})
		return fbc.Bundle{Schema: fbc.SchemaBundle, Name: name, Package: pkg, Image: image,
			Properties:    []fbc.Property{{Type: "olm.package", Value: json.RawMessage(`{"packageName":"` + pkg + `","version":"1.0.0"}`)}, {Type: "olm.bundle.object", Value: obj}},
			RelatedImages: []fbc.RelatedImage{{Image: image}}}
	}
	images := &fbc.Catalog{Bundles: []fbc.Bundle{
		bundle("b.v2", "b", "r/b:2"), bundle("b.v1", "b", "r/b:1"), bundle("a.v1", "a", "r/a:1"),
		bundle("a.v1", "a", "r/a:1-again"), bundle("orphan", "", "r/orphan"),
	}}
	entries := []string{
		`{"schema":"olm.package","name":"b","defaultChannel":"s","description":"<b> & b"}`,
		`{"schema":"olm.channel","package":"b","name":"s","entries":[{"name":"b.v1"},{"name":"b.v2","replaces":"b.v1"}]}`,
		`{"schema":"olm.bundle","image":"r/b:2"}`,
		`{"schema":"custom.z","package":"b","name":"z","value":1}`,
		`{"schema":"olm.bundle","image":"r/a:1-again"}`,
		`{"schema":"olm.bundle","image":"r/b:1"}`,
		`{"schema":"olm.bundle","image":"r/orphan"}`,
		`{"schema":"custom.root","name":"r","value":{"k":"<v>"}}`,
		`{"schema":"olm.bundle","image":"r/a:1"}`,
		`{"schema":"olm.package","name":"a"}`,
		`{"schema":"olm.bundle","image":"r/b:2"}`,
		`{"schema":"olm.deprecations","package":"b","entries":[{"reference":{"schema":"olm.bundle","name":"b.v1"},"message":"old"}]}`,
		`{"schema":"custom.a","package":"a","name":"x"}`,
	}
	text := "schema: olm.template.basic\nentries:\n"
	for _, e := range entries {
		text += "- " + e + "\n"
	}
	tmpl, err := template.Parse("", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{template.OutputJSON, template.OutputYAML} {
		cat, err := template.Render(context.Background(), tmpl, template.NewCatalogRenderer(images), template.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := template.Write(&want, cat, format); err != nil {
			t.Fatal(err)
		}
		s := &streamer{BundleRenderer: template.NewCatalogRenderer(images)}
		got, err := renderStreamed(t, tmpl, s, template.Options{}, format)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: streamed differs from Render and Write:\n got %s\nwant %s", format, got, want.Bytes())
		}
		if len(s.asked) != 1 || len(s.asked[0]) != 5 {
			t.Errorf("%s: asked for %q, want the 5 distinct images once", format, s.asked)
		}
	}

	// A missing image fails as Render fails, and nothing is written.
	missing := &streamer{BundleRenderer: template.NewCatalogRenderer(&fbc.Catalog{Bundles: images.Bundles[:2]})}
	_, err = renderStreamed(t, tmpl, missing, template.Options{}, template.OutputJSON)
	_, want := template.Render(context.Background(), tmpl, template.NewCatalogRenderer(&fbc.Catalog{Bundles: images.Bundles[:2]}), template.Options{})
	var img *template.ImageError
	if err == nil || want == nil || err.Error() != want.Error() || !errors.As(err, &img) {
		t.Errorf("missing image: %v, want %v", err, want)
	}
}
