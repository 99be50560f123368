package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newBundleCmd) }

const bundleRenderLong = `Render bundle directories and bundle images as olm.bundle blobs, exactly as opm v1.72's
'opm render DIR' and 'opm render IMAGE' do.

  olmcat bundle render (DIR | IMAGE)... [--image IMG]... [-o json|yaml]

A bundle directory holds manifests/ (one ClusterServiceVersion, its CRDs and other objects) and
metadata/ (annotations.yaml naming the package and channels; optional dependencies.yaml and
properties.yaml), as in a bundle image. The blob has: olm.package (package annotation, CSV
version), olm.gvk per provided API, olm.gvk.required and olm.package.required from required CRDs
and dependencies.yaml, the properties of properties.yaml and of the CSV's olm.properties
annotation, then one olm.bundle.object per manifest; relatedImages from the CSV, its deployments
and the bundle image.

--image gives the bundle image of each DIR, in order (one per DIR, or none): it becomes the blob's
image and a related image. Without it the image is "", as opm renders a bare directory.

An IMAGE is a bundle image reference (REGISTRY/REPO:TAG or @DIGEST, oci-layout:DIR[:TAG],
docker-archive:FILE), read without a container daemon: its manifests and metadata directories
(where its labels say, /manifests and /metadata by default) are extracted, with the protections
of index images, and rendered as a directory is, with the reference as given as the image (opm
does not resolve a tag to a digest). A label that disagrees with annotations.yaml is a warning:
opm and OLM read annotations.yaml.

Blobs go to stdout. What opm silently renders otherwise than the bundle's author meant is rendered
exactly as opm renders it, with a warning on stderr ("olmcat: warning: FILE:LINE: ...") where opm
says nothing: a dependency whose value opm cannot read (a mis-indented value: in dependencies.yaml
becomes an empty olm.package.required or olm.gvk.required), a metadata file that is not valid YAML
(opm ignores all of it, dependencies included), a manifest file that is not a Kubernetes object,
extra YAML documents. --strict refuses such a bundle instead, printing the same messages as errors.

Exit codes: 0 rendered, 1 refused by --strict, 2 bad usage or a bundle that cannot be rendered
(an unreadable image, an image that is not a bundle image, a layer that would escape).`

const bundleValidateLong = `Check a bundle directory, or the bundle of a bundle image:
  - manifests/ and metadata/ exist and metadata/ has an annotations file that is valid YAML;
  - the annotations: media type (registry+v1, helm or plain), manifests and metadata paths
    (manifests/ and metadata/), package, channels (no empty names), default channel (a warning
    when absent or not among the channels);
  - a registry+v1 bundle parses: exactly one ClusterServiceVersion, with a semver spec.version, a
    valid olm.skipRange, and a CRD manifest for every CRD it owns;
  - given image labels (--labels FILE, --image REF, or the labels of the bundle image validated),
    that they agree with annotations.yaml. annotations.yaml is authoritative (OLM reads only it), so a label that
    differs is an error. FILE may be a JSON or YAML map of labels, 'docker inspect' output, an OCI
    image config, or the bundle's Dockerfile (LABEL instructions).

What opm renders without a word but not as the author meant (a dependency whose value opm cannot
read, a metadata file opm ignores, a skipped manifest file) is a warning, as 'bundle render' warns.
--strict reports every warning as an error.

Findings are printed one per line on stdout ("FILE[:LINE]: SEVERITY: MESSAGE") and the verdict on
stderr, as validate prints them ("olmcat: valid: 0 errors, 1 warning (bundle DIR)"), or as JSON with
-o json, in validate's shape:
  {"passed": bool, "errors": N, "warnings": N, "dir": "...",
   "issues": [{"severity": "error"|"warning", "file"?, "line"?, "message"}]}

Exit codes: 0 valid (warnings allowed), 1 errors found (or warnings with --strict), 2 bad usage or
unreadable labels.`

func newBundleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle (render BUNDLE... | validate BUNDLE)",
		Short: "Render bundle directories or images as olm.bundle blobs, or validate a bundle",
	}
	cmd.AddCommand(newBundleRenderCmd(), newBundleValidateCmd())
	return cmd
}

func newBundleRenderCmd() *cobra.Command {
	var images []string
	var format string
	var strict bool
	var imgOpts indeximage.Options
	cmd := &cobra.Command{
		Use:   "render (DIR | IMAGE)... [--image IMG]... [--strict]",
		Short: "Render bundle directories or bundle images as olm.bundle blobs (as opm render does)",
		Long:  bundleRenderLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := fbc.ParseFormat(format)
			if err != nil {
				return usageError{err}
			}
			dirs := len(args)
			for _, a := range args {
				if source.IsBundleImage(a) {
					dirs--
				}
			}
			if len(images) > 0 && len(images) != dirs {
				return usageError{fmt.Errorf("%d --image for %d directories: give one per directory, in order, or none (a bundle image is its own image)", len(images), dirs)}
			}
			if err := checkImageFlags(images); err != nil {
				return err
			}
			out := &fbc.Catalog{}
			for _, arg := range args {
				image, b, err := readBundleArg(cmd.Context(), arg, &images, imgOpts)
				if err != nil {
					return err
				}
				if err := reportBundleWarnings(cmd.ErrOrStderr(), b, strict); err != nil {
					return err
				}
				blob, err := b.Render(image)
				if err != nil {
					return usageError{err}
				}
				out.Bundles = append(out.Bundles, blob)
			}
			// Written as opm writes a rendered config: by package, then bundle name.
			var buf bytes.Buffer
			if err := fbc.Write(&buf, out, f); err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(buf.Bytes())
			return err
		},
	}
	cmd.Flags().StringArrayVar(&images, "image", nil, "bundle image of each DIR, in order (repeat)")
	cmd.Flags().StringVarP(&format, "output", "o", "json", "output format: json or yaml")
	cmd.Flags().BoolVar(&strict, "strict", false, "refuse a bundle opm would render otherwise than written (anything warned about)")
	addImageFlags(cmd.Flags(), &imgOpts)
	return cmd
}

// readBundleArg reads a bundle directory, whose image is the next of images (or none), or a bundle
// image, whose image is its reference.
func readBundleArg(ctx context.Context, arg string, images *[]string, opts indeximage.Options) (string, *bundledir.Bundle, error) {
	if source.IsBundleImage(arg) {
		b, err := source.OpenBundle(ctx, arg, opts)
		return arg, b, err
	}
	image := ""
	if len(*images) > 0 {
		image, *images = (*images)[0], (*images)[1:]
	}
	b, err := source.OpenBundle(ctx, arg, opts)
	if err != nil {
		return "", nil, err
	}
	return image, b, nil
}

// reportBundleWarnings prints a parsed bundle's warnings on w, or, with strict, prints them as
// errors and refuses the bundle.
func reportBundleWarnings(w io.Writer, b *bundledir.Bundle, strict bool) error {
	prefix := "olmcat: warning: "
	if strict {
		prefix = "olmcat: "
	}
	for _, warning := range b.Warnings {
		fmt.Fprintf(w, "%s%s\n", prefix, warning)
	}
	if strict && len(b.Warnings) > 0 {
		return exitError{code: exitFindings, err: fmt.Errorf("bundle %s refused (--strict): %s that opm would render without a word",
			b.Dir, plural.Of(len(b.Warnings), "problem"))}
	}
	return nil
}

func newBundleValidateCmd() *cobra.Command {
	var labelsFile, image, format string
	var strict bool
	var imgOpts indeximage.Options
	cmd := &cobra.Command{
		Use:   "validate (DIR [--labels FILE | --image REF] | IMAGE) [--strict]",
		Short: "Check a bundle's annotations and content, and its image labels",
		Long:  bundleValidateLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("-o must be text or json, not %q", format)}
			}
			if labelsFile != "" && image != "" {
				return usageError{errors.New("--labels and --image exclude each other")}
			}
			if source.IsBundleImage(args[0]) {
				if labelsFile != "" || image != "" {
					return usageError{fmt.Errorf("%s is a bundle image, whose own labels are checked: --labels and --image are for a bundle directory", args[0])}
				}
				r, err := source.ValidateBundleImage(cmd.Context(), args[0], imgOpts, strict)
				if err != nil {
					return err
				}
				return finishBundleReport(cmd, r, format)
			}
			opts := bundledir.ValidateOptions{Strict: strict}
			switch {
			case labelsFile != "":
				data, err := bundledir.ReadFile(labelsFile, labelsFile)
				if err != nil {
					return usageError{err}
				}
				labels, form, err := bundledir.ParseLabels(data)
				if err != nil {
					return usageError{fmt.Errorf("%s: %w", labelsFile, err)}
				}
				opts.Labels, opts.LabelsFrom = labels, fmt.Sprintf("%s (%s)", labelsFile, form)
			case image != "":
				labels, err := source.BundleImageLabels(cmd.Context(), image, imgOpts)
				if err != nil {
					return err
				}
				opts.Labels, opts.LabelsFrom = labels, "image "+image
			}
			return finishBundleReport(cmd, bundledir.Validate(args[0], opts), format)
		},
	}
	f := cmd.Flags()
	f.StringVar(&labelsFile, "labels", "", "image labels to compare with annotations.yaml (map, inspect output, image config or Dockerfile)")
	f.StringVar(&image, "image", "", "read the labels of this bundle image (registry, oci-layout:, docker-archive:)")
	f.StringVarP(&format, "output", "o", "text", "output format: text or json")
	f.BoolVar(&strict, "strict", false, "report every warning as an error")
	addImageFlags(f, &imgOpts)
	return cmd
}

// bundleReport is validate bundle's JSON document: validate's shape (passed, the counts, issues
// with severity, file, line and message), with the bundle directory or image it is about.
type bundleReport struct {
	Passed   bool                `json:"passed"`
	Errors   int                 `json:"errors"`
	Warnings int                 `json:"warnings"`
	Dir      string              `json:"dir"`
	Issues   []bundledir.Finding `json:"issues"`
}

func newBundleReport(r bundledir.Report) bundleReport {
	out := bundleReport{Dir: r.Dir, Issues: r.Findings}
	if out.Issues == nil {
		out.Issues = []bundledir.Finding{}
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case bundledir.SeverityError:
			out.Errors++
		default:
			out.Warnings++
		}
	}
	out.Passed = out.Errors == 0
	return out
}

// finishBundleReport writes validate bundle's report as validate writes a catalog's: one line per
// finding on stdout and the verdict line on stderr, or the JSON document; exit 1 on errors.
func finishBundleReport(cmd *cobra.Command, r bundledir.Report, format string) error {
	rep := newBundleReport(r)
	if format == "json" {
		if err := writeJSONDoc(cmd.OutOrStdout(), rep); err != nil {
			return err
		}
	} else {
		for _, f := range r.Findings {
			if _, err := fmt.Fprintln(cmd.OutOrStdout(), textsafe.Terminal(f.String())); err != nil {
				return err
			}
		}
		verdict := "valid"
		if !rep.Passed {
			verdict = "invalid"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: %s: %s, %s (bundle %s)\n", verdict, plural.Of(rep.Errors, "error"), plural.Of(rep.Warnings, "warning"), textsafe.Terminal(r.Dir))
	}
	if !rep.Passed {
		return exitError{code: exitFindings}
	}
	return nil
}
