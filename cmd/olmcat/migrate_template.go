package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

const (
	toBasicTemplate  = "basic-template"
	toSemverTemplate = "semver-template"
)

const migrateToTemplateHelp = `--to basic-template writes the form catalogs are kept in today: one catalog template per package,
OUT/PKG/catalog-templates/basic.yaml as community-operators-prod lays them out (--template-layout
flat: OUT/PKG.yaml), YAML unless -o json. A basic template is the package's blobs with each bundle
reduced to its image, as 'opm alpha convert-template basic' writes it; 'olmcat render-template'
(or opm's) renders it back from the images. --to semver-template writes
OUT/PKG/catalog-templates/semver.yaml instead for every package whose upgrade graph a semver
template gives back exactly, and proves it: the template it wrote is rendered offline from the
catalog's own bundles and compared with the package by olmcat's diff; the same channels, the same
replaces/skips/skipRange edges and no warning or breaking finding (no user stranded, no head
moved, no edge lost, the same default channel), or the package gets a basic template and the
report says why and which edges a semver template cannot express. Each basic template is proven
the same way. --report FILE writes the per-package report (template, file, proof, refusal,
findings, edges) as JSON.`

// checkTemplateFlags refuses the flags that do not apply to templates.
func checkTemplateFlags(cmd *cobra.Command, imageDest string) error {
	for _, name := range []string{"migrate-level", "strict", "permissive"} {
		if cmd.Flags().Changed(name) {
			return usageError{fmt.Errorf("--%s does not apply with --to %s or %s: a template names bundles by image", name, toBasicTemplate, toSemverTemplate)}
		}
	}
	if imageDest != "" {
		return usageError{errors.New("--to-image and --oci-layout write an index image; they do not apply to templates")}
	}
	return nil
}

func runMigrateToTemplates(cmd *cobra.Command, src *source.Source, out string, report *reportOutput, opts convert.TemplateOptions) error {
	if opts.Layout != convert.LayoutCatalogTemplates && opts.Layout != convert.LayoutFlat {
		return usageError{fmt.Errorf("--template-layout must be %s or %s, not %q", convert.LayoutCatalogTemplates, convert.LayoutFlat, opts.Layout)}
	}
	opts.BeforeCommit = func(r *convert.TemplateReport) error { return report.write(r) }
	activeProgress(cmd).Phase("writing templates")
	rep, err := convert.MigrateToTemplates(cmd.Context(), src, out, opts)
	if err != nil {
		return err
	}
	if err := report.commit(); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	summaryTo(stderr, func(w io.Writer) { rep.WriteSummary(w, 20) })
	for _, p := range rep.Packages {
		for _, problem := range p.Problems {
			fmt.Fprintf(stderr, "olmcat: warning: %s: %s\n", filepath.Join(out, p.File), textsafe.Terminal(problem))
		}
	}
	line := fmt.Sprintf("olmcat: wrote the templates of %s into %s: %s", src, out, plural.Of(rep.Basic, "basic template"))
	if opts.Semver {
		line = fmt.Sprintf("olmcat: wrote the templates of %s into %s: %s (proven: rendered offline, same upgrade graph), %s", src, out,
			plural.Of(rep.Semver, "semver template"), plural.Of(rep.Basic, "basic template"))
	}
	fmt.Fprintln(stderr, line)
	return nil
}
