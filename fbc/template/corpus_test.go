package template_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/templatetest"
)

// TestRenderCorpus renders every render case of the conformance corpus, with the bundles read
// offline from the case's bundle directories, and compares with opm's bytes.
func TestRenderCorpus(t *testing.T) {
	for _, c := range templatetest.Cases(t, "render") {
		for _, run := range c.Runs {
			t.Run(c.ID+"/"+run.Expected, func(t *testing.T) {
				tmpl, err := template.Parse(run.Type, c.Read(t, run.File))
				if err != nil {
					t.Fatal(err)
				}
				r := &templatetest.DirRenderer{Case: c}
				opts := template.Options{CSVMetadata: run.MigrateLevel == "bundle-object-to-csv-metadata"}
				cat, err := template.Render(context.Background(), tmpl, r, opts)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := template.Write(&out, cat, run.Output); err != nil {
					t.Fatal(err)
				}
				compare(t, out.Bytes(), c.Read(t, run.Expected), c.Dir, run.Expected)
				if len(r.Calls) > 0 {
					seen := map[string]bool{}
					for _, call := range r.Calls {
						for _, ref := range call {
							if seen[ref] {
								t.Errorf("image %s rendered twice", ref)
							}
							seen[ref] = true
						}
					}
				}
			})
		}
	}
}

// TestConvertCorpus converts every convert case and compares with opm's bytes, in json and yaml.
func TestConvertCorpus(t *testing.T) {
	for _, c := range templatetest.Cases(t, "convert") {
		for _, run := range c.Runs {
			t.Run(c.ID+"/"+run.Expected, func(t *testing.T) {
				tmpl, err := template.ConvertBasic(bytes.NewReader(c.Read(t, run.File)), run.File)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := template.WriteBasic(&out, tmpl, run.Output); err != nil {
					t.Fatal(err)
				}
				compare(t, out.Bytes(), c.Read(t, run.Expected), c.Dir, run.Expected)
			})
		}
	}
}

// TestErrorCorpus gives every error case and checks opm's message.
func TestErrorCorpus(t *testing.T) {
	for _, c := range templatetest.Cases(t, "errors") {
		for _, run := range c.Runs {
			t.Run(c.ID, func(t *testing.T) {
				want := templatetest.ComparableError(c.ErrorMessage(t))
				tmpl, err := template.Parse(run.Type, c.Read(t, run.File))
				if err == nil {
					_, err = template.Render(context.Background(), tmpl, &templatetest.DirRenderer{Case: c}, template.Options{})
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

func compare(t *testing.T, got, want []byte, dir, name string) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-200)
	t.Errorf("%s differs from opm's at byte %d of %d (got %d bytes)\n got …%s…\nwant …%s…", name, i, len(want), len(got),
		got[lo:min(len(got), i+200)], want[lo:min(len(want), i+200)])
	if dir := os.Getenv("TEMPLATE_DEBUG_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, filepath.Base(dir)+"-"+name), got, 0o644)
	}
}
