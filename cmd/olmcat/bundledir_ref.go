package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/internal/source"
)

// isBundleDir tells a bundle directory as opm render tells one: a directory holding both a
// manifests/ and a metadata/ directory. opm renders such a directory as one olm.bundle blob, not
// as a catalog; so do render and (as 'validate bundle') validate.
func isBundleDir(ref string) bool {
	if st, err := os.Stat(ref); err != nil || !st.IsDir() {
		return false
	}
	for _, sub := range []string{"manifests", "metadata"} {
		if st, err := os.Stat(filepath.Join(ref, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// imageRefTemplate is the value of --alpha-image-ref-template: as in opm v1.72, the image a
// bundle directory is rendered with (it has none of its own), from {{.Package}}, {{.Name}} (the
// CSV's name) and {{.Version}} (the CSV's version).
type imageRefTemplate struct {
	text string
	tmpl *template.Template
}

func (t *imageRefTemplate) String() string { return t.text }
func (t *imageRefTemplate) Type() string   { return "template" }
func (t *imageRefTemplate) Set(s string) error {
	tmpl, err := template.New("image-ref-template").Option("missingkey=error").Parse(s)
	if err != nil {
		return fmt.Errorf("invalid image reference template: %w (the fields are {{.Package}}, {{.Name}} and {{.Version}})", err)
	}
	t.text, t.tmpl = s, tmpl
	return nil
}

// image is the image a bundle directory is rendered with: "" without a template, as opm.
func (t *imageRefTemplate) image(b *bundledir.Bundle) (string, error) {
	if t == nil || t.tmpl == nil {
		return "", nil
	}
	var sb strings.Builder
	data := struct{ Package, Name, Version string }{b.Package(), b.Name(), b.CSV.Version}
	if err := t.tmpl.Execute(&sb, data); err != nil {
		return "", usageError{fmt.Errorf("--alpha-image-ref-template on bundle %s: %w", b.Dir, err)}
	}
	return sb.String(), nil
}

// renderBundleDirRef renders the bundle directory ref as opm render does: its olm.bundle blob,
// its image from --alpha-image-ref-template or "", migrated to --migrate-level when it has an
// image (opm's migration leaves bundles without one alone).
func renderBundleDirRef(cmd *cobra.Command, ref string, in inputFlags) (fbc.Bundle, error) {
	b, err := source.OpenBundle(cmd.Context(), ref, in.images)
	if err != nil {
		return fbc.Bundle{}, err
	}
	_ = reportBundleWarnings(cmd.ErrOrStderr(), b, false)
	image, err := in.imageRef.image(b)
	if err != nil {
		return fbc.Bundle{}, err
	}
	blob, err := renderImageBundle(b, image, in.migrateLevel)
	if err != nil {
		return fbc.Bundle{}, usageError{err}
	}
	return blob, nil
}

// validateBundleDirRef is 'validate DIR' on a bundle directory: 'validate bundle DIR', said once
// on stderr (opm validate reads every directory as a catalog and fails on the manifests).
func validateBundleDirRef(cmd *cobra.Command, dir string, strict bool, format string) error {
	fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: %s is a bundle directory (manifests/ and metadata/): validated as 'olmcat validate bundle %s' validates it\n", dir, dir)
	r := bundledir.Validate(dir, bundledir.ValidateOptions{Strict: strict})
	if format == "yaml" {
		if err := writeYAMLDoc(cmd.OutOrStdout(), r); err != nil {
			return err
		}
		if n := r.Errors(); n > 0 {
			return exitError{code: exitFindings}
		}
		return nil
	}
	return finishBundleReport(cmd, r, format)
}

// bundleDirNotCatalog refuses a bundle directory given where a catalog is read (render and
// validate take it before): read as a catalog, its CRDs and annotations would each be "a blob
// with no schema", and the user told to add one.
func bundleDirNotCatalog(ref string) error {
	if !isBundleDir(ref) {
		return nil
	}
	return &source.Error{Ref: ref, Problem: source.NotACatalog, Detail: "a bundle directory (manifests/ and metadata/)",
		Hint: fmt.Sprintf("render its olm.bundle blob with 'olmcat render %s', add it to a catalog with 'olmcat add CATALOG %s', check it with 'olmcat validate %s'", ref, ref, ref)}
}
