package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/scratch"
	"github.com/olmcat/olmcat/internal/source"
)

const migrateImageHelp = `CATALOG may be an index image: a registry reference (quay.io/ns/index:v4.12; credentials from
the docker/podman config, --insecure for plain-HTTP registries other than localhost), oci-layout:DIR[:TAG]
or docker-archive:FILE. Only the layers holding index.db are read; no container daemon is needed.
With --to-image REF (or --oci-layout DIR) olmcat also writes the FBC index image: the input image's
layers without /database, plus a /configs layer holding OUT, the configs label instead of the
database label, and the base image's opm serving /configs; a multi-arch input gives a multi-arch
image (every platform rebuilt; a docker archive gets the --platform image only). The same input
gives the same digest.`

// migrateImageFlags are the flags of `olmcat migrate` for index-image inputs and outputs.
type migrateImageFlags struct {
	images       *indeximage.Options // shared with the input flags
	toImage      string
	ociLayout    string
	server       string // opm or olmcat
	serverBinary string
}

func addMigrateImageFlags(f *pflag.FlagSet, m *migrateImageFlags) {
	f.StringVar(&m.toImage, "to-image", "", "with an index image CATALOG: also write the FBC index image to this registry reference, oci-layout:DIR[:TAG] or docker-archive:FILE")
	f.StringVar(&m.ociLayout, "oci-layout", "", "with an index image CATALOG: also write the FBC index image as a new OCI layout directory (same as --to-image oci-layout:DIR)")
	f.StringVar(&m.server, "server", "opm", "the catalog server of the written image: opm (the input image's opm, serving /configs) or olmcat (an image from scratch holding this olmcat)")
	f.StringVar(&m.serverBinary, "server-binary", "", "with --server olmcat: the olmcat binary to put in the image (a static linux build for --platform; default: this olmcat)")
}

// destination is where the FBC index image goes, "" for nowhere.
func (m migrateImageFlags) destination() (string, error) {
	switch {
	case m.toImage != "" && m.ociLayout != "":
		return "", usageError{errors.New("give --to-image or --oci-layout, not both")}
	case m.ociLayout != "":
		return indeximage.OCILayoutPrefix + m.ociLayout, nil
	}
	return m.toImage, nil
}

// writeMigratedImage builds the FBC index image of a migrated index image (its layers without the
// database, plus the FBC written at out) and writes it to dest. It shares build's code: the same
// layer builder (indeximage), SOURCE_DATE_EPOCH stamps, olmcat's serve cache and olmcat image.
// Unlike build on opm's base it adds no opm serve cache: the input image's opm may be older than
// the cache format olmcat writes, and would refuse it.
func writeMigratedImage(cmd *cobra.Command, src *source.Source, out, dest string, force bool, m migrateImageFlags) error {
	stamp, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	if m.server == "olmcat" {
		return writeServerImage(cmd, out, dest, force, m, stamp)
	}
	img := src.Image()
	ctx := cmd.Context()
	build := indeximage.BuildOptions{DatabaseLayers: img.DatabaseLayers, Created: stamp, LayerTime: stamp}
	var digest v1.Hash
	if img.Index != nil && !indeximage.IsDockerArchive(dest) {
		// Every platform of a multi-arch input keeps its image.
		idx, err := indeximage.BuildFBCIndex(img.Index, out, build)
		if err != nil {
			return fmt.Errorf("build the FBC index image from %s: %w", src, err)
		}
		if digest, err = indeximage.WriteIndex(ctx, idx, dest, force, *m.images); err != nil {
			return fmt.Errorf("write the FBC index image to %s: %w", dest, err)
		}
	} else {
		fbcImg, err := indeximage.BuildFBCImage(img.Image, out, build)
		if err != nil {
			return fmt.Errorf("build the FBC index image from %s: %w", src, err)
		}
		if digest, err = indeximage.WriteImage(ctx, fbcImg, dest, force, *m.images); err != nil {
			return fmt.Errorf("write the FBC index image to %s: %w", dest, err)
		}
	}
	fmt.Fprintf(summaryOut(cmd), "olmcat: wrote FBC index image %s (%s)\n", dest, digest)
	return nil
}

// writeServerImage builds a catalog image served by olmcat from the FBC written at out, with a
// serve cache built by the same olmcat, and writes it to dest: build's --server olmcat image of
// one platform, written as a single image rather than an index.
func writeServerImage(cmd *cobra.Command, out, dest string, force bool, m migrateImageFlags, stamp time.Time) error {
	ctx := cmd.Context()
	platform, err := v1.ParsePlatform(m.images.Platform)
	if err != nil || platform.OS != "linux" {
		return usageError{fmt.Errorf("--platform %q: an olmcat server image is linux/ARCH", m.images.Platform)}
	}
	cache, remove, err := scratch.MkdirTemp("", "olmcat-image-cache-")
	if err != nil {
		return err
	}
	defer remove()
	if err := writeOlmcatCache(ctx, out, cache); err != nil {
		return fmt.Errorf("build the serve cache for the image: %w", err)
	}
	img, err := olmcatImageFromScratch(out, cache, m.serverBinary, *platform, stamp)
	if err != nil {
		return err
	}
	digest, err := indeximage.WriteImage(ctx, img, dest, force, *m.images)
	if err != nil {
		return fmt.Errorf("write the catalog server image to %s: %w", dest, err)
	}
	fmt.Fprintf(summaryOut(cmd), "olmcat: wrote catalog image %s served by olmcat (%s)\n", dest, digest)
	return nil
}
