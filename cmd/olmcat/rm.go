package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc/ops"
)

func init() { register(newRmCmd) }

const rmLong = `Remove bundles, a channel or a package from a catalog.

  olmcat rm CATALOG BUNDLE... [--package P] [--mode M] [--allow-empty] (--output-dir DIR | --output-db FILE | --in-place)
  olmcat rm CATALOG --package P --channel C (--output-dir DIR | --output-db FILE | --in-place)
  olmcat rm CATALOG --package P (--output-dir DIR | --output-db FILE | --in-place)

A BUNDLE is a bundle name or a bundle image; --package narrows the lookup when a name is in
several packages. The bundle leaves every channel and the catalog, and each channel is stitched
back together:
  --mode replaces (default): the entries that replaced it now replace what it replaced, and also
    skip what it skipped;
  --mode semver | semver-skippatch: the channel is rebuilt from the remaining versions.
A removal that would leave a channel with no single head is refused. One that would empty a
channel is refused unless --allow-empty, which removes emptied channels (and the package, when
none is left); the default channel is never removed while the package has other channels.
Deprecation entries of removed objects are dropped.

With --channel (and no BUNDLE) the channel is removed, with the bundles that are in no other
channel; with only --package the whole package is removed.

` + editInputHelp + `

` + editOutputHelp + `

Exit codes: 0 removed, 1 refused, 2 bad usage or unreadable input.`

func newRmCmd() *cobra.Command {
	var (
		out     catalogOutput
		pkg, ch string
		mode    string
		prune   bool
		in      inputFlags
	)
	cmd := &cobra.Command{
		Use:   "rm CATALOG [BUNDLE...] [--package P [--channel C]] (--output-dir DIR | --output-db FILE | --in-place)",
		Short: "Remove bundles (stitching the upgrade graph back together), a channel or a package",
		Long:  rmLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			m, err := ops.ParseMode(mode)
			if err != nil {
				return usageError{err}
			}
			refs := args[1:]
			switch {
			case len(refs) > 0 && ch != "":
				return usageError{errors.New("--channel removes a whole channel: give either BUNDLE names or --channel")}
			case len(refs) == 0 && pkg == "":
				return usageError{errors.New("nothing to remove: give BUNDLE names, or --package (with --channel for one channel)")}
			}
			return editCatalog(cmd, args[0], in, out, nil, func(in *catalogInput) ([]string, error) {
				var (
					notes []string
					err   error
				)
				switch {
				case len(refs) > 0:
					notes, err = ops.RemoveBundles(in.cat, refs, ops.RemoveOptions{Package: pkg, Mode: m, AllowEmpty: prune})
				case ch != "":
					notes, err = ops.RemoveChannel(in.cat, pkg, ch)
				default:
					err = ops.RemovePackage(in.cat, pkg)
					notes = []string{"removed package " + pkg}
				}
				return notes, opError(err)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&pkg, "package", "", "package of the bundles, or the package (channel) to remove")
	f.StringVar(&ch, "channel", "", "remove this channel of --package")
	f.StringVar(&mode, "mode", string(ops.ModeReplaces), "how channels are stitched: replaces, semver or semver-skippatch")
	f.BoolVar(&prune, "prune", false, "remove channels (and packages) that the removal empties")
	addOutputFlags(f, &out)
	addInputFlags(f, &in)
	return cmd
}
