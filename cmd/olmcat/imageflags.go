package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// addImageFlags adds the flags of every command that accepts an index image reference
// (registry, oci-layout:DIR, docker-archive:FILE) where a catalog is expected.
func addImageFlags(fs *pflag.FlagSet, opts *indeximage.Options) {
	fs.StringVar(&opts.Platform, "platform", indeximage.DefaultPlatform, "image to read from a multi-arch index image, OS/ARCH[/VARIANT]")
	fs.BoolVar(&opts.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for image registries (localhost and loopback registries always allow HTTP)")
}

// localInputs turns the image references among args into local paths (an extracted index.db or
// configs directory); everything else is kept as given. Call cleanup when done with the paths.
func localInputs(ctx context.Context, args []string, opts indeximage.Options) (paths []string, cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for _, c := range cleanups {
			c()
		}
	}
	for _, arg := range args {
		p, done, err := indeximage.LocalPath(ctx, arg, opts)
		if err != nil {
			cleanup()
			return nil, func() {}, usageError{err}
		}
		cleanups = append(cleanups, done)
		paths = append(paths, p)
	}
	return paths, cleanup, nil
}
