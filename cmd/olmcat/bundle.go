package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
)

func init() { register(newBundleCmd) }

const bundleRenderLong = `Render bundle directories as olm.bundle blobs, exactly as opm v1.72's 'opm render DIR' does.

  olmcat bundle render DIR... [--image IMG]... [-o json|yaml]

A bundle directory holds manifests/ (one ClusterServiceVersion, its CRDs and other objects) and
metadata/ (annotations.yaml naming the package and channels; optional dependencies.yaml and
properties.yaml), as in a bundle image. The blob has: olm.package (package annotation, CSV
version), olm.gvk per provided API, olm.gvk.required and olm.package.required from required CRDs
and dependencies.yaml, the properties of properties.yaml and of the CSV's olm.properties
annotation, then one olm.bundle.object per manifest; relatedImages from the CSV, its deployments
and the bundle image.

--image gives the bundle image of each DIR, in order (one per DIR, or none): it becomes the blob's
image and a related image. Without it the image is "", as opm renders a bare directory.

Blobs go to stdout. What opm silently renders otherwise than the bundle's author meant is rendered
exactly as opm renders it, with a warning on stderr ("olmcat: warning: FILE:LINE: ...") where opm
says nothing: a dependency whose value opm cannot read (a mis-indented value: in dependencies.yaml
becomes an empty olm.package.required or olm.gvk.required), a metadata file that is not valid YAML
(opm ignores all of it, dependencies included), a manifest file that is not a Kubernetes object,
extra YAML documents. --strict refuses such a bundle instead, printing the same messages as errors.

Exit codes: 0 rendered, 1 refused by --strict, 2 bad usage or a bundle that cannot be rendered.`

const bundleValidateLong = `Check a bundle directory:
  - manifests/ and metadata/ exist and metadata/ has an annotations file that is valid YAML;
  - the annotations: media type (registry+v1, helm or plain), manifests and metadata paths
    (manifests/ and metadata/), package, channels (no empty names), default channel (a warning
    when absent or not among the channels);
  - a registry+v1 bundle parses: exactly one ClusterServiceVersion, with a semver spec.version, a
    valid olm.skipRange, and a CRD manifest for every CRD it owns;
  - given image labels (--labels FILE, or --image REF read from its registry), that they agree with
    annotations.yaml. annotations.yaml is authoritative (OLM reads only it), so a label that
    differs is an error. FILE may be a JSON or YAML map of labels, 'docker inspect' output, an OCI
    image config, or the bundle's Dockerfile (LABEL instructions).

What opm renders without a word but not as the author meant (a dependency whose value opm cannot
read, a metadata file opm ignores, a skipped manifest file) is a warning, as 'bundle render' warns.
--strict reports every warning as an error.

Findings are printed one per line ("FILE[:LINE]: SEVERITY: MESSAGE"), or as JSON with -o json:
  {"dir", "findings": [{"severity": "error"|"warning", "file"?, "line"?, "message"}]}

Exit codes: 0 valid (warnings allowed), 1 errors found (or warnings with --strict), 2 bad usage or
unreadable labels.`

func newBundleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle (render DIR... | validate DIR)",
		Short: "Render bundle directories as olm.bundle blobs, or validate a bundle directory",
	}
	cmd.AddCommand(newBundleRenderCmd(), newBundleValidateCmd())
	return cmd
}

func newBundleRenderCmd() *cobra.Command {
	var images []string
	var format string
	var strict bool
	cmd := &cobra.Command{
		Use:   "render DIR... [--image IMG]... [--strict]",
		Short: "Render bundle directories as olm.bundle blobs (as opm render does)",
		Long:  bundleRenderLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := fbc.ParseFormat(format)
			if err != nil {
				return usageError{err}
			}
			if len(images) > 0 && len(images) != len(args) {
				return usageError{fmt.Errorf("%d --image for %d directories: give one per directory, in order, or none", len(images), len(args))}
			}
			out := &fbc.Catalog{}
			for i, dir := range args {
				b, err := bundledir.Parse(dir)
				if err != nil {
					return usageError{err}
				}
				if err := reportBundleWarnings(cmd.ErrOrStderr(), b, strict); err != nil {
					return err
				}
				image := ""
				if len(images) > 0 {
					image = images[i]
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
	return cmd
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
		Use:   "validate DIR [--labels FILE | --image REF] [--strict]",
		Short: "Check a bundle directory's annotations and content, and its image labels",
		Long:  bundleValidateLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("-o must be text or json, not %q", format)}
			}
			if labelsFile != "" && image != "" {
				return usageError{errors.New("--labels and --image exclude each other")}
			}
			opts := bundledir.ValidateOptions{Strict: strict}
			switch {
			case labelsFile != "":
				data, err := os.ReadFile(labelsFile)
				if err != nil {
					return usageError{err}
				}
				labels, form, err := bundledir.ParseLabels(data)
				if err != nil {
					return usageError{fmt.Errorf("%s: %w", labelsFile, err)}
				}
				opts.Labels, opts.LabelsFrom = labels, fmt.Sprintf("%s (%s)", labelsFile, form)
			case image != "":
				labels, err := imageLabels(cmd.Context(), image, imgOpts)
				if err != nil {
					return usageError{err}
				}
				opts.Labels, opts.LabelsFrom = labels, "image "+image
			}
			r := bundledir.Validate(args[0], opts)
			if err := writeBundleReport(cmd.OutOrStdout(), r, format); err != nil {
				return err
			}
			if n := r.Errors(); n > 0 {
				return exitError{code: exitFindings, err: fmt.Errorf("bundle %s: %s", args[0], plural.Of(n, "error"))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&labelsFile, "labels", "", "image labels to compare with annotations.yaml (map, inspect output, image config or Dockerfile)")
	f.StringVar(&image, "image", "", "read the labels of this bundle image from its registry")
	f.StringVarP(&format, "output", "o", "text", "output format: text or json")
	f.BoolVar(&strict, "strict", false, "report every warning as an error")
	addImageFlags(f, &imgOpts)
	return cmd
}

func writeBundleReport(w io.Writer, r bundledir.Report, format string) error {
	if format == "json" {
		return writeJSONDoc(w, r)
	}
	for _, f := range r.Findings {
		if _, err := fmt.Fprintln(w, f.String()); err != nil {
			return err
		}
	}
	return nil
}

// imageLabels reads an image's labels (its config) from a registry, for the platform asked.
func imageLabels(ctx context.Context, ref string, opts indeximage.Options) (map[string]string, error) {
	var nameOpts []name.Option
	if opts.Insecure {
		nameOpts = append(nameOpts, name.Insecure)
	}
	r, err := name.ParseReference(ref, nameOpts...)
	if err != nil {
		return nil, fmt.Errorf("image %q: %w", ref, err)
	}
	platform := opts.Platform
	if platform == "" {
		platform = indeximage.DefaultPlatform
	}
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		return nil, fmt.Errorf("--platform %q: %w", platform, err)
	}
	img, err := remote.Image(r, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain), remote.WithPlatform(*p))
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", ref, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image %s: read config: %w", ref, err)
	}
	if cf.Config.Labels == nil {
		return map[string]string{}, nil
	}
	return cf.Config.Labels, nil
}
