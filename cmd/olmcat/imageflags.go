package main

import (
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/convert/indeximage"
)

// addImageFlags adds the flags of every command that accepts an index image reference
// (registry, oci-layout:DIR, docker-archive:FILE) where a catalog is expected.
func addImageFlags(fs *pflag.FlagSet, opts *indeximage.Options) {
	fs.StringVar(&opts.Platform, "platform", indeximage.DefaultPlatform, "image to read from a multi-arch index image, OS/ARCH[/VARIANT]")
	fs.BoolVar(&opts.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for image registries (localhost and loopback registries always allow HTTP)")
}
