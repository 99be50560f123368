package convert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/source"
)

// templateInputs are real catalogs of every kind: FBC directories, index.db files, revisions of
// real catalog repositories, and what opm rendered from real templates.
func templateInputs(t *testing.T) []string {
	t.Helper()
	var inputs []string
	for _, pattern := range []string{
		"../../shared/conformance/fbc/*/catalog",
		"../../shared/conformance/sqlite/*/input.db",
		"../../shared/diffpairs/fbc/*/new",
		"../../shared/diffpairs/sqlite/*/new.db",
		"../../shared/conformance/templates/render/*/expected.json",
	} {
		m, _ := filepath.Glob(pattern)
		inputs = append(inputs, m...)
	}
	if len(inputs) == 0 {
		t.Skip("no reference catalogs in ../shared (conformance/, diffpairs/): they live in /work/shared")
	}
	return inputs
}

// TestMigrateToTemplatesProven migrates real catalogs to semver templates (basic where a semver
// template cannot express the graph) and checks, independently of the proof MigrateToTemplates
// runs, that every template written renders offline back into its package: the same channels and
// edges, no warning or breaking diff finding.
func TestMigrateToTemplatesProven(t *testing.T) {
	semver := map[string]int{}
	for _, input := range templateInputs(t) {
		t.Run(strings.TrimPrefix(input, "../../shared/"), func(t *testing.T) {
			ctx := context.Background()
			src, err := source.Open(ctx, input, source.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			out := filepath.Join(t.TempDir(), "templates")
			rep, err := MigrateToTemplates(ctx, src, out, TemplateOptions{Semver: true})
			if err != nil {
				t.Fatal(err)
			}
			packages := map[string]*fbc.Catalog{}
			if err := src.WalkPackages(ctx, func(pkg string, c *fbc.Catalog) error {
				packages[pkg] = c
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(rep.Packages) != len(packages) || rep.Semver+rep.Basic != len(rep.Packages) {
				t.Fatalf("report has %d packages (%d semver, %d basic), the catalog %d", len(rep.Packages), rep.Semver, rep.Basic, len(packages))
			}
			for _, p := range rep.Packages {
				want := filepath.Join(p.Package, "catalog-templates", p.Template+".yaml")
				if p.Package == "" {
					want = filepath.Join("catalog-templates", "basic.yaml")
				}
				if p.File != want {
					t.Errorf("%s: file %s, want %s", p.Package, p.File, want)
				}
				data, err := os.ReadFile(filepath.Join(out, p.File))
				if err != nil {
					t.Fatal(err)
				}
				tmpl, err := template.Parse("", data)
				if err != nil {
					t.Fatalf("%s: %v", p.File, err)
				}
				if got := strings.TrimPrefix(tmpl.Schema(), "olm.template."); got != p.Template && !(p.Template == "semver" && got == template.SchemaSemver) {
					t.Errorf("%s: schema %s, report says %s", p.File, tmpl.Schema(), p.Template)
				}
				orig := packages[p.Package]
				if len(p.Problems) > 0 {
					for _, problem := range p.Problems {
						if !strings.Contains(problem, "has no image") {
							t.Errorf("%s: %s", p.File, problem)
						}
					}
					continue
				}
				rendered, err := template.Render(ctx, tmpl, template.NewCatalogRenderer(orig), template.Options{})
				if err != nil {
					t.Fatalf("%s: %v", p.File, err)
				}
				for _, f := range diff.Compare(&diff.Side{Catalog: orig}, &diff.Side{Catalog: rendered}).Findings {
					if f.Severity.Rank() >= diff.Warning.Rank() {
						t.Errorf("%s renders with a %s finding: %s", p.File, f.Severity, f.Message)
					}
				}
				if p.Template == "semver" {
					semver[input]++
					if !sameEdges(edgesOf(orig), edgesOf(rendered)) {
						t.Errorf("%s: a semver template that does not give back the package's edges", p.File)
					}
				} else if p.SemverRefused == "" && p.Package != "" {
					t.Errorf("%s: basic template without the reason semver was refused", p.File)
				}
			}
		})
	}
	for _, input := range []string{
		"../../shared/conformance/templates/render/semver-clusterpulse/expected.json",
		"../../shared/conformance/templates/render/semver-clusterpulse-majorminor/expected.json",
	} {
		if semver[input] != 1 {
			t.Errorf("%s, rendered from a semver template, did not convert back to one", input)
		}
	}
}

func sameEdges(a, b map[TemplateEdge]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for e := range a {
		if !b[e] {
			return false
		}
	}
	return true
}

// TestSemverTemplateRefusesInexpressibleEdge: a skip that a semver template would not generate
// (the head of fast-v0 skipping across minor versions to a bundle it would not skip, replaced by
// an edge from another minor) sends the package to a basic template, and the report names it.
func TestSemverTemplateRefusesInexpressibleEdge(t *testing.T) {
	// fast-v1's head also skips 0.3.0, the head of the previous major: no semver template crosses
	// a major version.
	src, dir := editedClusterpulse(t, `"name": "clusterpulse.v1.0.2",
            "skips": [`, `"name": "clusterpulse.v1.0.2",
            "skips": [
                "clusterpulse.v0.3.0",`)
	rep, err := MigrateToTemplates(context.Background(), src, filepath.Join(dir, "out"), TemplateOptions{Semver: true, Layout: LayoutFlat})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Semver != 0 || rep.Basic != 1 {
		t.Fatalf("%d semver, %d basic templates; want the package as basic", rep.Semver, rep.Basic)
	}
	p := rep.Packages[0]
	want := TemplateEdge{Channel: "fast-v1", Bundle: "clusterpulse.v1.0.2", Kind: "skips", To: "clusterpulse.v0.3.0"}
	if len(p.LostEdges) != 1 || p.LostEdges[0] != want {
		t.Errorf("edges not expressed: %v, want %v", p.LostEdges, want)
	}
	if !strings.Contains(p.SemverRefused, want.String()) || p.File != "clusterpulse.yaml" {
		t.Errorf("report: %+v", p)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "clusterpulse.yaml")); err != nil {
		t.Error(err)
	}
}

// TestBasicTemplatesAreOpmsConvert: the basic template migrate writes for a package is byte for
// byte what opm's convert-template basic printed for it (the template corpus's convert cases whose
// input is a render case's output).
func TestBasicTemplatesAreOpmsConvert(t *testing.T) {
	const corpus = "../../shared/conformance/templates/"
	for _, c := range []struct{ render, convert, pkg string }{
		{"basic-cat-facts-operator", "convert-basic-cat-facts-operator", "cat-facts-operator"},
		{"substitutes-jumpstarter-operator", "convert-basic-substitutes-jumpstarter-operator", "jumpstarter-operator"},
	} {
		for _, format := range []fbc.Format{fbc.JSON, fbc.YAML} {
			want, err := os.ReadFile(corpus + "convert/" + c.convert + "/expected" + format.Ext())
			if err != nil {
				t.Skipf("%v (the template corpus lives in /work/shared/conformance/templates)", err)
			}
			ctx := context.Background()
			src, err := source.Open(ctx, corpus+"render/"+c.render+"/expected.json", source.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			_, err = MigrateToTemplates(ctx, src, out, TemplateOptions{Format: format})
			src.Close()
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, c.pkg, "catalog-templates", "basic"+format.Ext()))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s %s: the basic template differs from opm's convert-template output", c.render, format)
			}
		}
	}
}

// TestSemverTemplateRefusesDefaultChannelChange: a package whose default channel is not the one a
// semver template picks (the high-water channel) keeps a basic template; the diff finding says so.
func TestSemverTemplateRefusesDefaultChannelChange(t *testing.T) {
	src, dir := editedClusterpulse(t, `"defaultChannel": "fast-v1"`, `"defaultChannel": "fast-v0"`)
	rep, err := MigrateToTemplates(context.Background(), src, filepath.Join(dir, "out"), TemplateOptions{Semver: true})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Packages[0]
	if p.Template != "basic" || len(p.Findings) == 0 || p.Findings[0].Kind != diff.DefaultChannelChanged || len(p.LostEdges)+len(p.AddedEdges) != 0 {
		t.Errorf("report: %+v", p)
	}
}

// editedClusterpulse opens the semver-clusterpulse rendering of the template corpus with its first
// old replaced by replacement, and returns it with the temporary directory it was written in.
func editedClusterpulse(t *testing.T, old, replacement string) (*source.Source, string) {
	t.Helper()
	data, err := os.ReadFile("../../shared/conformance/templates/render/semver-clusterpulse/expected.json")
	if err != nil {
		t.Skipf("%v (the template corpus lives in /work/shared/conformance/templates)", err)
	}
	edited := strings.Replace(string(data), old, replacement, 1)
	if edited == string(data) {
		t.Fatal("the edit did not apply: the corpus changed")
	}
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(catalog, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(context.Background(), catalog, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, dir
}
