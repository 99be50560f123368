package template_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/templatetest"
)

// A template written in flow-style YAML is detected and rendered as its block-style original:
// the corpus's templates, re-encoded, give opm's bytes.
func TestFlowStyleTemplatesRender(t *testing.T) {
	for _, c := range templatetest.Cases(t, "render") {
		for _, run := range c.Runs {
			if run.Type != "" || run.MigrateLevel != "" {
				continue
			}
			t.Run(c.ID+"/"+run.Expected, func(t *testing.T) {
				flow := templatetest.FlowStyle(t, c.Read(t, run.File))
				if _, err := template.DetectSchema(flow); err != nil {
					t.Fatalf("%v\n%.200s", err, flow)
				}
				tmpl, err := template.Parse("", flow)
				if err != nil {
					t.Fatal(err)
				}
				cat, err := template.Render(context.Background(), tmpl, &templatetest.DirRenderer{Case: c}, template.Options{File: "t.yaml"})
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := template.Write(&out, cat, run.Output); err != nil {
					t.Fatal(err)
				}
				compare(t, out.Bytes(), c.Read(t, run.Expected), c.Dir, run.Expected)
				// Every blob is located in the flow text too.
				lines := bytes.Count(flow, []byte("\n")) + 1
				for _, b := range cat.Bundles {
					if b.Loc.Line < 1 || b.Loc.Line > lines {
						t.Errorf("bundle %s located at %s, outside the %d lines of the template", b.Name, b.Loc, lines)
					}
				}
			})
		}
	}
}

func TestFirstDocumentReadsFlowStyleYAML(t *testing.T) {
	for _, c := range []struct{ doc, schema string }{
		{"{schema: olm.template.basic, entries: []}", "olm.template.basic"},
		{"  {Schema: 'olm.semver',\n   Stable: {Bundles: [{Image: a}]}}\n---\n{schema: olm.template.basic}", "olm.semver"},
		{`{"schema": "olm.template.substitutes"}`, "olm.template.substitutes"},
	} {
		got, err := template.DetectSchema([]byte(c.doc))
		if err != nil || got != c.schema {
			t.Errorf("%q: %q, %v; want %q", c.doc, got, err, c.schema)
		}
	}
	// Neither JSON nor YAML: the JSON error, as Kubernetes' decoder gives it.
	if _, err := template.FirstDocument([]byte("{schema: [}")); err == nil || !bytes.Contains([]byte(err.Error()), []byte("invalid character")) {
		t.Errorf("broken flow document: %v", err)
	}
}
