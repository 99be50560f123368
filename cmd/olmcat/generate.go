package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newGenerateCmd) }

func newGenerateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate artifacts for File-Based Catalog index images",
	}
	cmd.AddCommand(newGenerateDockerfileCmd(), newGenerateKubeCmd(), newGenerateBaseImageCmd())
	return cmd
}

const generateDockerfileLong = `Write the Dockerfile that builds an index image serving a File-Based Catalog, as
'opm generate dockerfile' (v1.72) does, with its flags:

  -i/--base-image IMAGE     the image the catalog image is built on (default: the opm image)
  -b/--builder-image IMAGE  the image the serve cache is pre-built in (default: the opm image)
  -l/--extra-labels K=V     extra labels (repeatable or comma-separated; a later duplicate key wins)

When the base image is the builder image (the defaults), the Dockerfile has one stage: FROM the
opm image, ENTRYPOINT /bin/opm serving /configs on port 50051, the catalog ADDed at /configs, its
serve cache pre-built into /tmp/cache (RUN opm serve --cache-only), the
operators.operatorframework.io.index.configs.v1 label and the extra labels. When they differ, it
has opm v1.72's two stages: a builder stage FROM the builder image that ADDs the catalog and
builds the cache, then FROM the base image, which gets the ENTRYPOINT and CMD and COPYs /configs
and /tmp/cache from the builder. (opm v1.72 writes the two stages even when both images are the
same; olmcat writes the one stage it always wrote, which builds the same image.) With -i scratch
the base stage has no ENTRYPOINT, CMD or RUN (scratch holds no binary): such a binary-less image is
served by OLM's own opm, and the Dockerfile says which CatalogSource fields
(spec.grpcPodConfig.extractContent) that takes. The builder image may not be scratch.
--binary-image is opm's deprecated name of --base-image; as in opm, it sets the builder image too
unless -b is given.

With --server olmcat the image builds on an olmcat image instead (a scratch image holding the
static olmcat binary and /bin/grpc_health_probe linked to it, built from cmd/olmcat/Dockerfile in
olmcat's repository; the default of -i and -b): olmcat serves the catalog and answers OLM's
grpc_health_probe. A scratch base is refused then: OLM's opm could not read olmcat's cache.

The Dockerfile is written beside DIR and named after it: 'olmcat generate dockerfile catalogs/prod'
writes catalogs/prod.Dockerfile, to be built from catalogs/ (docker build -f prod.Dockerfile catalogs/).
An existing Dockerfile is only replaced with --force.`

func newGenerateDockerfileCmd() *cobra.Command {
	var baseImage, builderImage, binaryImage string
	var labels []string
	var force bool
	var server string
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "dockerfile DIR",
		Short: "Write DIR.Dockerfile building an index image for the catalog in DIR",
		Long:  generateDockerfileLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server != "opm" && server != "olmcat" {
				return usageError{fmt.Errorf("--server must be opm or olmcat, not %q", server)}
			}
			fl := cmd.Flags()
			if fl.Changed("binary-image") && fl.Changed("base-image") {
				return usageError{errors.New("--binary-image is the old name of --base-image (-i): give one of them")}
			}
			defaultImage := indeximage.DefaultBinaryImage
			if server == "olmcat" {
				defaultImage = indeximage.DefaultServerImage
			}
			if !fl.Changed("base-image") {
				baseImage = defaultImage
			}
			if !fl.Changed("builder-image") {
				builderImage = defaultImage
			}
			if fl.Changed("binary-image") {
				fmt.Fprintln(cmd.ErrOrStderr(), "olmcat: --binary-image is deprecated, as in opm: use --base-image (-i), and --builder-image (-b) for the stage that builds the cache")
				baseImage = binaryImage
				if !fl.Changed("builder-image") {
					builderImage = binaryImage // opm's old behaviour: one image for both
				}
			}
			if strings.TrimSpace(builderImage) == indeximage.Scratch {
				return usageError{fmt.Errorf("invalid builder image %q: the builder stage runs the server to pre-build its cache; give an image holding it with -b (the default is %s)", builderImage, defaultImage)}
			}
			if server == "olmcat" && strings.TrimSpace(baseImage) == indeximage.Scratch {
				return usageError{errors.New("--server olmcat with a scratch base image: a binary-less catalog image is served by OLM's own opm (grpcPodConfig.extractContent), which cannot read the cache olmcat builds; use --server opm, or an olmcat base image")}
			}
			extra, err := indeximage.ParseLabels(labels)
			if err != nil {
				return usageError{fmt.Errorf("--extra-labels: %w", err)}
			}
			catalogDir := filepath.Clean(args[0])
			src, err := in.open(cmd, args[0]) // the same checks (and words) as every command
			if err != nil {
				return err
			}
			src.Close()
			if src.Ref().Form != source.FormDir {
				return usageError{fmt.Errorf("%s is a %s, not a directory: give the catalog's root directory", args[0], src.Ref().Form)}
			}
			name := filepath.Base(catalogDir)
			if name == "." || name == string(filepath.Separator) {
				return usageError{fmt.Errorf("%s has no name to build beside: give the catalog directory by its name, e.g. ../%s", args[0], filepath.Base(mustAbs(catalogDir)))}
			}
			path := filepath.Join(filepath.Dir(catalogDir), name+".Dockerfile")
			out, err := atomicout.File(path, force)
			if err != nil {
				return usageError{err}
			}
			defer out.Abort()
			f, err := os.OpenFile(out.Path(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			werr := indeximage.WriteDockerfile(f, indeximage.DockerfileOptions{BaseImage: baseImage, BuilderImage: builderImage, IndexDir: name, ExtraLabels: extra, Olmcat: server == "olmcat"})
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return usageError{werr}
			}
			if err := out.Commit(); err != nil {
				return err
			}
			fmt.Fprintf(summaryOut(cmd), "olmcat: wrote %s\n", path)
			return nil
		},
	}
	cmd.Flags().StringVarP(&baseImage, "base-image", "i", indeximage.DefaultBinaryImage, "image the catalog image is built on (default with --server olmcat: "+indeximage.DefaultServerImage+"); scratch for a binary-less image")
	cmd.Flags().StringVarP(&builderImage, "builder-image", "b", indeximage.DefaultBinaryImage, "image holding the server binary that pre-builds the serve cache in a builder stage (default with --server olmcat: "+indeximage.DefaultServerImage+"); not scratch")
	cmd.Flags().StringVar(&binaryImage, "binary-image", "", "deprecated (as in opm): --base-image, and --builder-image too unless given")
	cmd.Flags().StringVar(&server, "server", "opm", "the catalog server: opm (as opm generate dockerfile writes it) or olmcat")
	cmd.Flags().StringSliceVarP(&labels, "extra-labels", "l", nil, "extra labels, key=value (repeatable; a later duplicate key wins)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing Dockerfile")
	cmd.Flags().BoolVar(&in.allowEmpty, "allow-empty", false, "accept a directory without any catalog blob")
	return cmd
}

func mustAbs(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
