package source_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/imagetest"
	"github.com/olmcat/olmcat/internal/source"
)

// A single file that is no template but looks meant to be one is refused by every command the
// same way: exit 2 with a sentence naming the file, the schema found and the schema meant. opm
// reads it as a catalog of one custom blob, valid, so a misspelled template would pass review.
func TestMisspelledTemplateIsRefused(t *testing.T) {
	template := string(mustRead(t, corpusPath(t, "templates-real/jumpstarter-operator__basic.yaml__v4.20/catalog-templates/basic.yaml")))
	if !strings.HasPrefix(template, "---\nschema: olm.template.basic\n") {
		t.Fatalf("the template does not start as it did: %.40q", template)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, file, schema string
		want               []string
	}{
		{"misspelled", "basic.yaml", "olm.template.basik",
			[]string{`basic.yaml: bad catalog template: its first document has schema "olm.template.basik" (line 2)`, "probably the template schema olm.template.basic misspelled", "(write schema: olm.template.basic)"}},
		{"case and the other form", "semver.yaml", "OLM.Template.Semver",
			[]string{`has schema "OLM.Template.Semver" (line 2)`, "probably the template schema olm.semver misspelled"}},
		{"unknown template schema", "fancy.yaml", "olm.template.fancy",
			[]string{`has schema "olm.template.fancy" (line 2), a template schema opm does not know (it renders olm.template.basic, olm.semver, olm.template.substitutes)`}},
		{"in catalog-templates", "catalog-templates/v4.20.yaml", "com.example.custom",
			[]string{`v4.20.yaml: bad catalog template: a file in a catalog-templates directory whose first document has schema "com.example.custom" (line 2), not a catalog template schema`}},
	} {
		file := filepath.Join(dir, c.file)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		data := strings.Replace(template, "schema: olm.template.basic", "schema: "+c.schema, 1)
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, ref := range []string{file, "-"} {
			if ref == "-" && strings.Contains(c.file, "/") {
				continue // standard input sits in no directory
			}
			_, err := source.Open(context.Background(), ref, source.Options{Templates: imagetest.RenderBasicTemplate, Stdin: strings.NewReader(data)})
			var e *source.Error
			if !errors.As(err, &e) || e.Problem != source.BadTemplate || e.Ref != ref {
				t.Errorf("%s (%s): %v, want a bad catalog template error", c.name, ref, err)
				continue
			}
			for _, part := range c.want {
				if ref == "-" {
					part = strings.Replace(part, c.file+":", "-:", 1)
				}
				if !strings.Contains(err.Error(), part) {
					t.Errorf("%s (%s): %q does not say %q", c.name, ref, err, part)
				}
			}
		}
	}
	// The same schema in a JSON template is found at the line its document starts on.
	file := filepath.Join(dir, "basic.json")
	if err := os.WriteFile(file, []byte("\n\n{\"schema\": \"olm.tempalte.basic\", \"entries\": []}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := source.Open(context.Background(), file, source.Options{})
	if err == nil || !strings.Contains(err.Error(), `has schema "olm.tempalte.basic" (line 3)`) {
		t.Errorf("JSON: %v", err)
	}
}

// TestRealCatalogFilesAreNoMisspelledTemplates: every catalog file of the corpora, opened on its
// own, is read as it was: no FBC file is taken for a misspelled template, and the real templates
// are templates.
func TestRealCatalogFilesAreNoMisspelledTemplates(t *testing.T) {
	root := corpusPath(t, ".")
	var files []string
	for _, dir := range []string{"fbc", "invalid", "filter", "templates", "templates-real", "../diffpairs/fbc"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir() && d.Name() == "grpc":
				return filepath.SkipDir
			case !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")):
				files = append(files, path)
			}
			return nil
		})
	}
	templates := 0
	for _, file := range files {
		src, err := source.Open(context.Background(), file, source.Options{AllowEmpty: true})
		if err == nil {
			src.Close()
			continue
		}
		var e *source.Error
		if !errors.As(err, &e) || e.Problem != source.BadTemplate {
			continue // not a catalog at all (CASE.json, ...): not this test's business
		}
		inTemplates := strings.Contains(file, "/catalog-templates/") || strings.Contains(file, "/templates/")
		switch {
		case strings.Contains(err.Error(), "which is not rendered here"):
			templates++
		case strings.Contains(file, "/error-unknown-schema/") && strings.Contains(err.Error(), "olm.template.fancy"):
			// opm's render-template refuses it too (its expected.txt)
		default:
			t.Errorf("%s (in a templates corpus: %v): %v", file, inTemplates, err)
		}
	}
	if len(files) < 100 || templates < 10 {
		t.Errorf("%d files, %d templates: the corpora are not where they were", len(files), templates)
	}
	t.Logf("%d files, %d templates", len(files), templates)
}
