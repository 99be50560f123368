package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// referenceHelp says what a catalog reference may be; every command's help ends with it.
const referenceHelp = `A catalog reference is one of: an FBC directory or file (JSON or YAML), - for standard input,
an unpacked catalog directory (olmcat unpack; its objects/ refs are resolved), an index.db
(recognized by its content, not its name), an image (REGISTRY/REPO:TAG, oci-layout:DIR[:TAG],
docker-archive:FILE), or git:REV:PATH for PATH as it is at a git revision.`

// inputFlags are the flags of every command that reads catalogs.
type inputFlags struct {
	images       indeximage.Options
	allowEmpty   bool
	migrateLevel tofbc.MigrateLevel
}

func addInputFlags(fs *pflag.FlagSet, f *inputFlags) {
	addImageFlags(fs, &f.images)
	fs.BoolVar(&f.allowEmpty, "allow-empty", false, "accept a catalog without any blob (by default an input error, so that a wrong path fails), and read one without packages without a warning")
}

// open opens a catalog reference for cmd; close the source when done.
func (f inputFlags) open(cmd *cobra.Command, ref string) (*source.Source, error) {
	return source.Open(cmd.Context(), ref, f.options(cmd))
}

func (f inputFlags) options(cmd *cobra.Command) source.Options {
	return source.Options{Images: f.images, AllowEmpty: f.allowEmpty, MigrateLevel: f.migrateLevel, Stdin: cmd.InOrStdin(),
		Warn: inputWarning(cmd)}
}

// inputWarning prints what package source says about an input on the command's stderr.
func inputWarning(cmd *cobra.Command) func(string) {
	return func(msg string) { fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: warning: %s\n", msg) }
}

// openAll opens every reference; on error the ones already open are closed.
func (f inputFlags) openAll(cmd *cobra.Command, refs []string) ([]*source.Source, func(), error) {
	var srcs []*source.Source
	closeAll := func() {
		for _, s := range srcs {
			s.Close()
		}
	}
	stdin := 0
	for _, ref := range refs {
		if ref == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return nil, func() {}, usageError{errTwoStdin}
	}
	for _, ref := range refs {
		s, err := f.open(cmd, ref)
		if err != nil {
			closeAll()
			return nil, func() {}, err
		}
		srcs = append(srcs, s)
	}
	return srcs, closeAll, nil
}

// addImageFlags adds the flags of every command that reads images.
func addImageFlags(fs *pflag.FlagSet, opts *indeximage.Options) {
	fs.StringVar(&opts.Platform, "platform", indeximage.DefaultPlatform, "image to read from a multi-arch index image, OS/ARCH[/VARIANT]")
	fs.BoolVar(&opts.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for image registries (localhost and loopback registries always allow HTTP)")
}
