package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/internal/indeximage"
)

const migrateImageHelp = `INPUT may also be an index image: a registry reference (quay.io/ns/index:v4.12; credentials from
the docker/podman config, --insecure for plain-HTTP registries other than localhost), oci-layout:DIR[:TAG]
or docker-archive:FILE. Only the layers holding index.db are read; no container daemon is needed.
With --to-image REF (or --oci-layout DIR) olmcat also writes the FBC index image: the input image's
layers without /database, plus a /configs layer holding OUTDIR, the configs label instead of the
database label, and the base image's opm serving /configs; a multi-arch input gives a multi-arch
image (every platform rebuilt; a docker archive gets the --platform image only). The same input
gives the same digest.`

// migrateImageFlags are the flags of `olmcat migrate` for index-image inputs and outputs.
type migrateImageFlags struct {
	images    indeximage.Options
	toImage   string
	ociLayout string
}

func addMigrateImageFlags(f *pflag.FlagSet, m *migrateImageFlags) {
	addImageFlags(f, &m.images)
	f.StringVar(&m.toImage, "to-image", "", "with an image INPUT: also write the FBC index image to this registry reference, oci-layout:DIR[:TAG] or docker-archive:FILE")
	f.StringVar(&m.ociLayout, "oci-layout", "", "with an image INPUT: also write the FBC index image as a new OCI layout directory (same as --to-image oci-layout:DIR)")
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

// runMigrateImage migrates the index.db of an index image into out and, when asked, builds and
// writes the FBC index image on top of the input image.
func runMigrateImage(cmd *cobra.Command, ref, out, reportPath string, opts convert.MigrateOptions, m migrateImageFlags) error {
	dest, err := m.destination()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	src, err := indeximage.Fetch(ctx, ref, m.images)
	if err != nil {
		return usageError{err}
	}
	defer src.Cleanup()
	if src.Kind != indeximage.SQLite {
		return usageError{fmt.Errorf("%s is already a File-Based Catalog image (its catalog is at %s): there is nothing to migrate; 'olmcat render %s' prints it", ref, src.ImagePath, ref)}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: read %s from %s (%d of %d layers)\n", src.ImagePath, ref, src.LayersRead, src.LayersTotal)
	if err := runMigrateToFBC(cmd, src.Path, out, reportPath, opts); err != nil {
		return err
	}
	if dest == "" {
		return nil
	}
	build := indeximage.BuildOptions{DatabaseLayers: src.DatabaseLayers}
	var digest v1.Hash
	if src.Index != nil && !strings.HasPrefix(dest, indeximage.DockerArchivePrefix) {
		// Every platform of a multi-arch input keeps its image.
		idx, err := indeximage.BuildFBCIndex(src.Index, out, build)
		if err != nil {
			return fmt.Errorf("build the FBC index image from %s: %w", ref, err)
		}
		if digest, err = indeximage.WriteIndex(ctx, idx, dest, opts.Force, m.images); err != nil {
			return fmt.Errorf("write the FBC index image to %s: %w", dest, err)
		}
	} else {
		img, err := indeximage.BuildFBCImage(src.Image, out, build)
		if err != nil {
			return fmt.Errorf("build the FBC index image from %s: %w", ref, err)
		}
		if digest, err = indeximage.WriteImage(ctx, img, dest, opts.Force, m.images); err != nil {
			return fmt.Errorf("write the FBC index image to %s: %w", dest, err)
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: wrote FBC index image %s (%s)\n", dest, digest)
	return nil
}

// checkMigrateImageFlags refuses image outputs for a local INPUT: the new image is built on the
// input image's layers.
func checkMigrateImageFlags(m migrateImageFlags) error {
	dest, err := m.destination()
	if err != nil {
		return err
	}
	if dest != "" {
		return usageError{errors.New("--to-image and --oci-layout need an index image as INPUT (the new image is built on its layers); for a local index.db, use 'olmcat generate dockerfile OUTDIR' and build that")}
	}
	return nil
}
