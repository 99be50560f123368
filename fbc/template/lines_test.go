package template_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/templatetest"
)

// TestRenderLocatesBlobsInTheTemplate renders every render case of the corpus and checks that
// each rendered blob is located at the template line it came from: an entry passed through or a
// bundle rendered from an {schema: olm.bundle, image} entry at that entry, a semver bundle at its
// `- Image:` line, a generated channel at the entry of its first (lowest) bundle, a substitute at
// its substitution, and that reading the written stream back finds the same locations.
func TestRenderLocatesBlobsInTheTemplate(t *testing.T) {
	for _, c := range templatetest.Cases(t, "render") {
		run := c.Runs[0]
		t.Run(c.ID, func(t *testing.T) {
			data := c.Read(t, run.File)
			lines := strings.Split(string(data), "\n")
			line := func(loc fbc.Location) string {
				t.Helper()
				if loc.File != "template.yaml" || loc.Line < 1 || loc.Line > len(lines) {
					t.Fatalf("location %s is not a line of template.yaml", loc)
				}
				return lines[loc.Line-1]
			}
			// entry is the text of the YAML sequence item starting at loc, up to the next item.
			entry := func(loc fbc.Location) string {
				first := line(loc)
				indent := len(first) - len(strings.TrimLeft(first, " "))
				text := first
				for _, l := range lines[loc.Line:] {
					if len(l)-len(strings.TrimLeft(l, " ")) <= indent {
						break
					}
					text += "\n" + l
				}
				return text
			}
			tmpl, err := template.Parse(run.Type, data)
			if err != nil {
				t.Fatal(err)
			}
			cat, err := template.Render(context.Background(), tmpl, &templatetest.DirRenderer{Case: c}, template.Options{File: "template.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			images := map[string]string{}
			for _, b := range cat.Bundles {
				images[b.Name] = b.Image
				if e := entry(b.Loc); !strings.Contains(e, b.Image) || !strings.HasPrefix(strings.TrimSpace(e), "- ") {
					t.Errorf("bundle %s located at %s:\n%s", b.Name, b.Loc, e)
				}
			}
			for _, ch := range cat.Channels {
				e := entry(ch.Loc)
				switch tmpl.Schema() {
				case template.SchemaSemver:
					if !strings.Contains(e, images[ch.Entries[0].Name]) {
						t.Errorf("generated channel %s (first bundle %s) located at %s: %s", ch.Name, ch.Entries[0].Name, ch.Loc, e)
					}
				default:
					if !strings.Contains(e, "schema: olm.channel") || !strings.Contains(e, "name: "+ch.Name+"\n") {
						t.Errorf("channel %s located at %s:\n%s", ch.Name, ch.Loc, e)
					}
				}
			}
			for _, p := range cat.Packages {
				if l := line(p.Loc); !strings.Contains(strings.ToLower(l), "schema:") && !strings.Contains(entry(p.Loc), "name: "+p.Name) {
					t.Errorf("package %s located at %s: %s", p.Name, p.Loc, l)
				}
			}
			if tmpl.Substitutes != nil {
				for i, s := range tmpl.Substitutes.Substitutions {
					sub := cat.Bundles[len(cat.Bundles)-len(tmpl.Substitutes.Substitutions)+i]
					if l := line(sub.Loc); !strings.Contains(l, "name: "+s.Name) {
						t.Errorf("substitute %s located at %s: %s", sub.Name, sub.Loc, l)
					}
				}
			}

			// Written and read back, every blob finds its location again.
			var out bytes.Buffer
			if err := template.Write(&out, cat, template.OutputJSON); err != nil {
				t.Fatal(err)
			}
			want := map[string]fbc.Location{}
			for _, b := range cat.Bundles {
				want[fbc.SchemaBundle+"/"+b.Name] = b.Loc
			}
			for _, ch := range cat.Channels {
				want[fbc.SchemaChannel+"/"+ch.Name] = ch.Loc
			}
			locate := template.LocationsOf(cat).Locator()
			n := 0
			err = fbc.WalkReader(&out, "rendered", func(b fbc.Blob) error {
				loc, ok := locate(b)
				if !ok {
					t.Errorf("blob %s %s not located", b.Schema, b.Name)
				}
				if w, known := want[b.Schema+"/"+b.Name]; known && w != loc {
					t.Errorf("blob %s %s read back at %s, rendered at %s", b.Schema, b.Name, loc, w)
				}
				n++
				return nil
			})
			if err != nil || n == 0 {
				t.Fatalf("reading the rendered stream back: %d blobs, %v", n, err)
			}
		})
	}
}

// The templates opm's convert-template writes, in JSON and in YAML, locate each entry at the line
// where it starts: its `{` in JSON, its `- ` in YAML.
func TestLinesOfConvertedTemplates(t *testing.T) {
	for _, c := range templatetest.Cases(t, "convert") {
		for _, run := range c.Runs {
			t.Run(c.ID+"/"+run.Expected, func(t *testing.T) {
				data := c.Read(t, run.Expected)
				tmpl, err := template.Parse("", data)
				if err != nil {
					t.Fatal(err)
				}
				if tmpl.Lines == nil || len(tmpl.Lines.Entries) != len(tmpl.Basic.Entries) {
					t.Fatalf("lines %+v for %d entries", tmpl.Lines, len(tmpl.Basic.Entries))
				}
				lines := strings.Split(string(data), "\n")
				prev := 0
				for i, n := range tmpl.Lines.Entries {
					if n <= prev || n > len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[n-1]), "{") && !strings.HasPrefix(lines[n-1], "- ") {
						t.Fatalf("entry %d at line %d (after %d): %q", i, n, prev, lines[min(max(n, 1), len(lines))-1])
					}
					prev = n
				}
			})
		}
	}
}
