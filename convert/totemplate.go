package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
)

// Template layouts: where each package's template goes in the output directory.
const (
	// LayoutCatalogTemplates is the layout of community-operators-prod and certified-operators:
	// OUT/<package>/catalog-templates/<type>.yaml (basic.yaml or semver.yaml). Blobs that name no
	// package go to a basic template of their own, OUT/catalog-templates/basic.yaml, in every layout.
	LayoutCatalogTemplates = "catalog-templates"
	// LayoutFlat is one file per package: OUT/<package>.yaml.
	LayoutFlat = "flat"
)

// TemplateOptions tune MigrateToTemplates.
type TemplateOptions struct {
	// Semver writes a semver template for every package whose upgrade graph a semver template
	// reproduces exactly, a basic template for the others; false writes basic templates only.
	Semver bool
	Layout string     // LayoutCatalogTemplates (default) or LayoutFlat
	Format fbc.Format // yaml (default) or json
	Force  bool
	// BeforeCommit is called with the report before the output is moved into place; an error
	// aborts the migration.
	BeforeCommit func(*TemplateReport) error
}

// TemplateReport says what was written for each package and, where a semver template was asked
// for and not written, why.
type TemplateReport struct {
	Input    string            `json:"input"`
	To       string            `json:"to"`
	Layout   string            `json:"layout"`
	Semver   int               `json:"semverTemplates"`
	Basic    int               `json:"basicTemplates"`
	Packages []TemplatePackage `json:"packages"`
}

// TemplatePackage is the template written for one package.
type TemplatePackage struct {
	Package  string `json:"package"`
	Template string `json:"template"` // "basic" or "semver"
	File     string `json:"file"`     // relative to the output directory
	Bundles  int    `json:"bundles"`
	// Proof is how the written template was checked: rendered offline from the catalog's own
	// bundles and compared with the package by olmcat's diff.
	Proof string `json:"proof"`
	// Why a semver template was not written (with --to semver-template).
	SemverRefused string `json:"semverRefused,omitempty"`
	// Findings of the diff between the package and its semver template's rendering that refused it
	// (breaking and warning).
	Findings []diff.Finding `json:"findings,omitempty"`
	// Edges of the package that the semver template does not give (Lost) or gives on top (Added).
	LostEdges  []TemplateEdge `json:"edgesNotExpressed,omitempty"`
	AddedEdges []TemplateEdge `json:"edgesAddedBySemver,omitempty"`
	// Problems of the written template itself (a bundle without an image cannot be rendered).
	Problems []string `json:"problems,omitempty"`
}

// TemplateEdge is one upgrade edge of a channel: Bundle replaces, skips or skipRange To.
type TemplateEdge struct {
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Kind    string `json:"kind"` // replaces, skips, skipRange
	To      string `json:"to"`
}

func (e TemplateEdge) String() string {
	return fmt.Sprintf("%s: %s %s %s", e.Channel, e.Bundle, e.Kind, e.To)
}

// WriteJSON writes the report as indented JSON.
func (r *TemplateReport) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// WriteSummary writes one line per package written as basic where semver was asked for, at most
// limit lines.
func (r *TemplateReport) WriteSummary(w io.Writer, limit int) {
	n := 0
	for _, p := range r.Packages {
		if p.SemverRefused == "" {
			continue
		}
		if n == limit {
			fmt.Fprintf(w, "olmcat: ... (see --report for every package)\n")
			return
		}
		n++
		fmt.Fprintf(w, "olmcat: %s: basic template, not semver: %s\n", p.Package, p.SemverRefused)
	}
}

// MigrateToTemplates writes a catalog template per package of src into outDir (atomically; an
// existing non-empty outDir only with Force). Every template written is rendered again offline,
// from the catalog's own bundles, and compared with the package: a semver template is kept only
// when the package's channels and upgrade edges come back exactly and olmcat's diff finds nothing
// of warning or breaking severity; otherwise the package gets a basic template, and the report
// says which edges the semver template could not express.
func MigrateToTemplates(ctx context.Context, src *source.Source, outDir string, opts TemplateOptions) (*TemplateReport, error) {
	if opts.Layout == "" {
		opts.Layout = LayoutCatalogTemplates
	}
	if opts.Layout != LayoutCatalogTemplates && opts.Layout != LayoutFlat {
		return nil, fmt.Errorf("unknown template layout %q: use %s or %s", opts.Layout, LayoutCatalogTemplates, LayoutFlat)
	}
	if opts.Format == "" {
		opts.Format = fbc.YAML
	}
	target, err := atomicout.Dir(outDir, opts.Force)
	if err != nil {
		return nil, err
	}
	defer target.Abort()
	rep := &TemplateReport{Input: src.String(), To: "basic-template", Layout: opts.Layout, Packages: []TemplatePackage{}}
	if opts.Semver {
		rep.To = "semver-template"
	}
	var names outpath.Names
	names.Reserve(templatesDir) // the templates of blobs of no package
	err = src.WalkPackages(ctx, func(pkg string, c *fbc.Catalog) error {
		var dir string // the package's own name, checked, as a path relative to the output
		if pkg != "" {
			if dir, err = names.Join("", outpath.Package, pkg, c.Where()); err != nil {
				return err
			}
		}
		p, data, err := packageTemplate(ctx, pkg, c, opts)
		if err != nil {
			return fmt.Errorf("package %q: %w", pkg, err)
		}
		p.File = templateFile(dir, p.Template, opts)
		path := filepath.Join(target.Path(), p.File)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return target.Err(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return target.Err(err)
		}
		if p.Template == "semver" {
			rep.Semver++
		} else {
			rep.Basic++
		}
		rep.Packages = append(rep.Packages, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opts.BeforeCommit != nil {
		if err := opts.BeforeCommit(rep); err != nil {
			return nil, err
		}
	}
	if err := target.Commit(); err != nil {
		return nil, err
	}
	return rep, nil
}

// templatesDir holds a package's templates, and at the top the template of blobs of no package.
const templatesDir = "catalog-templates"

// templateFile is where the template of the package whose directory is dir (a name outpath
// accepted; "" for blobs of no package) goes, relative to the output.
func templateFile(dir, typ string, opts TemplateOptions) string {
	if dir == "" {
		return filepath.Join(templatesDir, "basic"+opts.Format.Ext())
	}
	if opts.Layout == LayoutFlat {
		return dir + opts.Format.Ext()
	}
	return filepath.Join(dir, templatesDir, typ+opts.Format.Ext())
}

// packageTemplate makes the template of one package and its bytes.
func packageTemplate(ctx context.Context, pkg string, c *fbc.Catalog, opts TemplateOptions) (TemplatePackage, []byte, error) {
	p := TemplatePackage{Package: pkg, Bundles: len(c.Bundles)}
	if opts.Semver && pkg != "" {
		data, refused, err := provenSemver(ctx, c, &p, string(opts.Format))
		if err != nil {
			return p, nil, err
		}
		if refused == "" {
			p.Template = "semver"
			p.Proof = "rendered offline from the catalog's bundles: same channels, same edges, no warning or breaking diff finding"
			return p, data, nil
		}
		p.SemverRefused = refused
	}
	basic, err := template.BasicFromCatalog(c)
	if err != nil {
		return p, nil, err
	}
	var buf bytes.Buffer
	if err := template.WriteBasic(&buf, basic, string(opts.Format)); err != nil {
		return p, nil, err
	}
	p.Template = "basic"
	for _, b := range c.Bundles {
		if b.Image == "" {
			p.Problems = append(p.Problems, fmt.Sprintf("bundle %q has no image (an index.db row added from a manifest directory has none): its entry is written as {schema: olm.bundle, image: \"\"}, and the template renders once that entry names the bundle's image", b.Name))
		}
	}
	if len(p.Problems) == 0 {
		if problem := proveBasic(ctx, c, buf.Bytes()); problem != "" {
			p.Problems = append(p.Problems, problem)
		}
	}
	p.Proof = "rendered offline from the catalog's bundles: no warning or breaking diff finding"
	if len(p.Problems) > 0 {
		p.Proof = "not proven: see problems"
	}
	return p, buf.Bytes(), nil
}

// provenSemver writes the semver template of a package and proves it; refused says why the
// package cannot have one.
func provenSemver(ctx context.Context, c *fbc.Catalog, p *TemplatePackage, format string) (data []byte, refused string, err error) {
	sv, why := template.SemverFromCatalog(c)
	if sv == nil {
		return nil, why, nil
	}
	var buf bytes.Buffer
	if err := template.WriteSemver(&buf, sv, format); err != nil {
		return nil, "", err
	}
	rendered, err := renderOffline(ctx, c, buf.Bytes())
	if err != nil {
		return nil, "the semver template does not render: " + err.Error(), nil
	}
	p.Findings = changes(c, rendered)
	old, gen := edgesOf(c), edgesOf(rendered)
	for e := range old {
		if !gen[e] {
			p.LostEdges = append(p.LostEdges, e)
		}
	}
	for e := range gen {
		if !old[e] {
			p.AddedEdges = append(p.AddedEdges, e)
		}
	}
	sortEdges(p.LostEdges)
	sortEdges(p.AddedEdges)
	var reasons []string
	if n := len(p.Findings); n > 0 {
		reasons = append(reasons, fmt.Sprintf("rendering it changes the upgrade graph (%s, first: %s)", plural.Of(n, "warning or breaking finding"), p.Findings[0].Message))
	}
	if n := len(p.LostEdges); n > 0 {
		reasons = append(reasons, fmt.Sprintf("%s cannot be expressed (first: %s)", plural.Of(n, "edge"), p.LostEdges[0]))
	}
	if n := len(p.AddedEdges); n > 0 {
		reasons = append(reasons, fmt.Sprintf("it would add %s (first: %s)", plural.Of(n, "edge"), p.AddedEdges[0]))
	}
	if len(reasons) > 0 {
		return nil, strings.Join(reasons, "; "), nil
	}
	p.Findings = nil
	return buf.Bytes(), "", nil
}

// proveBasic renders a basic template offline and says what differs from the package, "" if
// nothing of warning or breaking severity.
func proveBasic(ctx context.Context, c *fbc.Catalog, data []byte) string {
	rendered, err := renderOffline(ctx, c, data)
	if err != nil {
		return "the basic template does not render: " + err.Error()
	}
	if fs := changes(c, rendered); len(fs) > 0 {
		return "rendering the basic template changes the package: " + fs[0].Message
	}
	return ""
}

// changes are the findings of warning or breaking severity of olmcat's diff from a package to the
// rendering of its template, leaving out the problems both have (the template did not cause them).
func changes(pkg, rendered *fbc.Catalog) []diff.Finding {
	var out []diff.Finding
	for _, f := range diff.Compare(&diff.Side{Catalog: pkg}, &diff.Side{Catalog: rendered}).Findings {
		if f.Severity.Rank() >= diff.Warning.Rank() && f.Kind != diff.ProblemPersists {
			out = append(out, f)
		}
	}
	return out
}

// renderOffline parses template bytes as written and renders them from the catalog's bundles.
func renderOffline(ctx context.Context, c *fbc.Catalog, data []byte) (*fbc.Catalog, error) {
	t, err := template.Parse("", data)
	if err != nil {
		return nil, err
	}
	return template.Render(ctx, t, template.NewCatalogRenderer(c), template.Options{})
}

// edgesOf is the set of upgrade edges of a catalog's channels.
func edgesOf(c *fbc.Catalog) map[TemplateEdge]bool {
	out := map[TemplateEdge]bool{}
	for _, ch := range c.Channels {
		for _, e := range ch.Entries {
			if e.Replaces != "" {
				out[TemplateEdge{ch.Name, e.Name, "replaces", e.Replaces}] = true
			}
			for _, s := range e.Skips {
				out[TemplateEdge{ch.Name, e.Name, "skips", s}] = true
			}
			if e.SkipRange != "" {
				out[TemplateEdge{ch.Name, e.Name, "skipRange", e.SkipRange}] = true
			}
		}
	}
	return out
}

func sortEdges(es []TemplateEdge) {
	slices.SortFunc(es, func(a, b TemplateEdge) int {
		return strings.Compare(a.Channel+"\x00"+a.Bundle+"\x00"+a.Kind+"\x00"+a.To, b.Channel+"\x00"+b.Bundle+"\x00"+b.Kind+"\x00"+b.To)
	})
}
