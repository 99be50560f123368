package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newAddCmd) }

const addLong = `Add bundles to a catalog.

  olmcat add CATALOG BUNDLE... [--image IMG]... [--channel C]... [--mode M] (--output-dir DIR | --output-db FILE | --in-place)

Each BUNDLE is a bundle directory (manifests/ and metadata/, as in a bundle image), rendered as
'olmcat bundle render' does, with the matching --image (one per directory, in order; without
--image the bundle has no image and keeps its manifests, as opm renders a bare directory); or a
bundle image (REGISTRY/REPO:TAG or @DIGEST, oci-layout:DIR[:TAG], docker-archive:FILE), pulled
without a container daemon and added as its directory would be with --image set to the reference,
as 'opm index add --bundles' adds it. A BUNDLE may also be an FBC file or directory (or an index
image) of olm.bundle blobs; those name no channel, so --channel is needed.

Bundles are added in the order given, to the channels their annotations name (or every --channel);
a package or channel that does not exist yet is created.
  --mode replaces (default): the new bundle replaces the channel head, the one entry no other entry
    replaces or skips, and keeps its CSV's skips and skipRange. Adding v1, v2, v3 in turn gives the
    chain v1 <- v2 <- v3. A channel with more than one head is refused: nobody can tell which one
    the new bundle should replace.
  --mode semver | semver-skippatch: the channel is rebuilt from its bundles' versions, so the new
    bundle lands wherever its version puts it (see olmcat graph-rebuild).
The package's default channel follows the annotation of the newest bundle only (an older bundle
never changes it); --default-channel overrides.

` + editInputHelp + `

` + editOutputHelp + `

Exit codes: 0 added, 1 refused (the result would be invalid, a bundle already exists, ...), 2 bad
usage or unreadable input.`

func newAddCmd() *cobra.Command {
	var (
		out        catalogOutput
		images     []string
		channels   []string
		defChannel string
		mode       string
		in         inputFlags
	)
	cmd := &cobra.Command{
		Use:   "add CATALOG BUNDLE... (--output-dir DIR | --output-db FILE | --in-place)",
		Short: "Add bundles (bundle directories, bundle images or rendered blobs) to a catalog's channels",
		Long:  addLong,
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			m, err := ops.ParseMode(mode)
			if err != nil {
				return usageError{err}
			}
			bundles, err := readNewBundles(cmd, args[1:], images, len(channels) > 0, in.images)
			if err != nil {
				return err
			}
			return editCatalog(cmd, args[0], in, out, localInputPaths(args[1:]), func(in *catalogInput) ([]string, error) {
				notes, err := ops.Add(in.cat, bundles, ops.AddOptions{Mode: m, Channels: channels, DefaultChannel: defChannel})
				return notes, opError(err)
			})
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&images, "image", nil, "bundle image of each bundle directory, in order (repeat)")
	f.StringArrayVar(&channels, "channel", nil, "add to this channel instead of the annotated ones (repeat)")
	f.StringVar(&defChannel, "default-channel", "", "make this the package's default channel")
	f.StringVar(&mode, "mode", string(ops.ModeReplaces), "graph mode: replaces, semver or semver-skippatch")
	addOutputFlags(f, &out)
	addInputFlags(f, &in)
	return cmd
}

// readNewBundles reads bundle directories and bundle images (warning on stderr about what opm
// would render otherwise than written) and FBC files of olm.bundle blobs.
func readNewBundles(cmd *cobra.Command, args, images []string, haveChannels bool, imgOpts indeximage.Options) ([]ops.NewBundle, error) {
	stderr := cmd.ErrOrStderr()
	var dirs int
	for _, a := range args {
		if source.IsBundleDir(a) {
			dirs++
		}
	}
	if len(images) > 0 && len(images) != dirs {
		return nil, usageError{fmt.Errorf("%d --image for %d bundle directories: give one per directory, in order, or none", len(images), dirs)}
	}
	if err := checkImageFlags(images); err != nil {
		return nil, err
	}
	var out []ops.NewBundle
	for _, a := range args {
		if !source.IsBundleDir(a) {
			c, err := readBlobs(cmd, a, imgOpts)
			b, isBundle, err := source.AsBundleImage(cmd.Context(), a, err, imgOpts)
			if err != nil {
				return nil, err
			}
			if isBundle {
				_ = reportBundleWarnings(stderr, b, false)
				nb, err := ops.FromBundleDir(b, a)
				if err != nil {
					return nil, usageError{err}
				}
				out = append(out, nb)
				continue
			}
			blobs, err := bundleBlobs(a, c, haveChannels)
			if err != nil {
				return nil, err
			}
			out = append(out, blobs...)
			continue
		}
		image := ""
		if len(images) > 0 {
			image, images = images[0], images[1:]
		}
		b, err := source.OpenBundle(cmd.Context(), a, imgOpts)
		if err != nil {
			return nil, err
		}
		_ = reportBundleWarnings(stderr, b, false)
		nb, err := ops.FromBundleDir(b, image)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, nb)
	}
	return out, nil
}

func bundleBlobs(path string, c *fbc.Catalog, haveChannels bool) ([]ops.NewBundle, error) {
	if len(c.Bundles) == 0 {
		return nil, usageError{fmt.Errorf("%s is neither a bundle directory (manifests/ and metadata/), a bundle image, nor a file holding olm.bundle blobs", path)}
	}
	if !haveChannels {
		return nil, usageError{fmt.Errorf("%s holds olm.bundle blobs, which name no channel: pass --channel", path)}
	}
	var out []ops.NewBundle
	for _, b := range c.Bundles {
		nb := ops.FromBlob(b, nil, "")
		nb.Source = path
		out = append(out, nb)
	}
	return out, nil
}

// readBlobs loads a file or directory of rendered blobs (any catalog reference).
func readBlobs(cmd *cobra.Command, ref string, imgOpts indeximage.Options) (*fbc.Catalog, error) {
	src, err := source.Open(cmd.Context(), ref, source.Options{Images: imgOpts, AllowEmpty: true, Stdin: cmd.InOrStdin(), Templates: renderTemplate})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	c, err := src.Load(cmd.Context())
	if err != nil {
		return nil, loadFailure(ref, err)
	}
	return c, nil
}
