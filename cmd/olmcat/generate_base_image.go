package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
)

const generateBaseImageLong = `Write olmcat's own multi-arch base image, on which catalog images served by olmcat are built
(olmcat build --base), from static olmcat binaries, without a container daemon:

  olmcat generate base-image --binary linux/amd64=PATH --binary linux/arm64=PATH ... --to-image REF

Each --binary gives one platform's olmcat, a static Linux executable (CGO_ENABLED=0) of that
architecture, checked against its ELF header: a binary of another machine or byte order, or one
linked dynamically (it would need a libc the image lacks), is refused, as is a platform given
twice. Each platform's image is the one cmd/olmcat/Dockerfile builds: /bin/olmcat,
/bin/grpc_health_probe linked to it (OLM's probe), a world-writable /tmp, ENTRYPOINT /bin/olmcat,
CMD serve /configs --cache-dir=/tmp/cache, PATH=/bin, port 50051. No catalog is in it: a catalog
image adds /configs and the serve cache.

REF is a registry reference (pushed; credentials from the docker/podman config, as every image
command) or oci-layout:DIR[:TAG] (a new directory; an existing non-empty one is replaced only with
--force). The images and every file in them are stamped with $SOURCE_DATE_EPOCH, or the Unix epoch
when it is unset: the same binaries give the same digest. 'make image' builds the binaries for
linux/amd64, arm64, ppc64le and s390x and runs this. The index is printed on stdout
as REF@sha256:...`

func newGenerateBaseImageCmd() *cobra.Command {
	var binaries, labels []string
	var toImage string
	var force bool
	var opts indeximage.Options
	cmd := &cobra.Command{
		Use:   "base-image --binary linux/ARCH=PATH [--binary ...] --to-image REF",
		Short: "Write olmcat's multi-arch base image from static olmcat binaries, without a daemon",
		Long:  generateBaseImageLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGenerateBaseImage(cmd, binaries, labels, toImage, force, opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&binaries, "binary", nil, "linux/ARCH=PATH: the static olmcat binary of one platform of the image (repeat for each platform)")
	f.StringVar(&toImage, "to-image", "", "where the image index goes: a registry reference (pushed) or oci-layout:DIR[:TAG]")
	f.StringSliceVarP(&labels, "extra-labels", "l", nil, "labels of every platform's image, KEY=VALUE (repeatable or comma-separated)")
	f.BoolVar(&force, "force", false, "replace an existing oci-layout directory")
	f.BoolVar(&opts.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for the registry (localhost and loopback registries always allow HTTP)")
	addRegistryFlags(f, &opts)
	return cmd
}

func runGenerateBaseImage(cmd *cobra.Command, specs, labelPairs []string, dest string, force bool, opts indeximage.Options) error {
	if dest == "" {
		return usageError{errors.New("give --to-image REF: a registry reference or oci-layout:DIR")}
	}
	if indeximage.IsDockerArchive(dest) {
		return usageError{fmt.Errorf("--to-image %s: a docker archive holds one image, and olmcat's base is a multi-arch index: write to a registry or oci-layout:DIR", dest)}
	}
	if !indeximage.IsOCILayout(dest) {
		if _, err := indeximage.ParsePushDestination(dest, opts); err != nil {
			return usageError{fmt.Errorf("--to-image: %w", err)}
		}
	}
	var bins []indeximage.BaseBinary
	for _, s := range specs {
		b, err := indeximage.ParseBaseBinary(s)
		if err != nil {
			return usageError{err}
		}
		bins = append(bins, b)
	}
	if err := indeximage.CheckServerBaseBinaries(bins); err != nil {
		return usageError{err}
	}
	labels, err := indeximage.ParseLabels(labelPairs)
	if err != nil {
		return usageError{fmt.Errorf("--extra-labels: %w", err)}
	}
	created, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	idx, err := indeximage.BuildServerBaseIndex(indeximage.ServerBaseOptions{Binaries: bins, Created: created, Labels: labels})
	if err != nil {
		return err
	}
	digest, err := indeximage.WriteIndex(cmd.Context(), idx, dest, force, opts)
	if err != nil {
		return outputError{fmt.Errorf("write olmcat's base image to %s: %w", dest, err)}
	}
	var platforms []string
	for _, b := range bins {
		platforms = append(platforms, b.Platform.String())
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s@%s\n", indeximage.Untagged(dest), digest)
	fmt.Fprintf(summaryOut(cmd), "olmcat: wrote olmcat's base image %s: an index of %s (%s)\n", dest, plural.Of(len(bins), "platform"), strings.Join(platforms, ", "))
	return nil
}
