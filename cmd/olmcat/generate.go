package main

import (
	"fmt"
	"os"
	"path/filepath"

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
	cmd.AddCommand(newGenerateDockerfileCmd(), newGenerateKubeCmd())
	return cmd
}

const generateDockerfileLong = `Write the Dockerfile that builds an index image serving a File-Based Catalog, as
'opm generate dockerfile' did: FROM the opm image (-i), the catalog ADDed at /configs, its serve cache
pre-built into /tmp/cache, ENTRYPOINT /bin/opm serving /configs on port 50051, and the
operators.operatorframework.io.index.configs.v1 label plus any --extra-labels.

With --server olmcat the image builds on an olmcat image instead (a scratch image holding the
static olmcat binary and /bin/grpc_health_probe linked to it, built from cmd/olmcat/Dockerfile in
olmcat's repository): olmcat serves the catalog and answers OLM's grpc_health_probe.

The Dockerfile is written beside DIR and named after it: 'olmcat generate dockerfile catalogs/prod'
writes catalogs/prod.Dockerfile, to be built from catalogs/ (docker build -f prod.Dockerfile catalogs/).
An existing Dockerfile is only replaced with --force.`

func newGenerateDockerfileCmd() *cobra.Command {
	var baseImage string
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
			if server == "olmcat" && !cmd.Flags().Changed("binary-image") {
				baseImage = ""
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
			werr := indeximage.WriteDockerfile(f, indeximage.DockerfileOptions{BaseImage: baseImage, IndexDir: name, ExtraLabels: extra, Olmcat: server == "olmcat"})
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return usageError{werr}
			}
			if err := out.Commit(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: wrote %s\n", path)
			return nil
		},
	}
	cmd.Flags().StringVarP(&baseImage, "binary-image", "i", indeximage.DefaultBinaryImage, "image holding the server binary to build the index on (default with --server olmcat: "+indeximage.DefaultServerImage+")")
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
