package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc/ops"
)

func init() { register(newGraphRebuildCmd) }

const graphRebuildLong = `Rebuild the upgrade graph of a package's channels from its bundles.

  olmcat graph-rebuild CATALOG --package P [--channel C] --mode M (--output-dir DIR | --output-db FILE | --in-place)

  --mode semver: every bundle replaces the next lower version (skips are dropped; skipRanges kept).
  --mode semver-skippatch: the newest patch of each major.minor replaces the newest patch of the
    previous major.minor and skips the older patches of its own minor (in the lowest minor, it
    replaces the next lower patch instead). E.g. 1.0.0, 1.1.0, 1.1.1, 1.1.2, 1.2.0 gives
    1.1.2 replaces 1.0.0 and skips 1.1.1 and 1.1.0; 1.2.0 replaces 1.1.2.
  --mode replaces: each entry takes replaces, skips and the olm.skipRange annotation from its
    bundle's CSV (bundles carrying only olm.csv.metadata keep their entries).
Semver modes need a semver version per bundle, distinct within a channel; build metadata orders
versions that differ only there (1.0.0+2 after 1.0.0+1).

Without --channel every channel of the package is rebuilt.

` + editInputHelp + `

` + editOutputHelp + `

Exit codes: 0 rebuilt, 1 refused (a version is not semver, the result is invalid, ...), 2 bad usage
or unreadable input.`

func newGraphRebuildCmd() *cobra.Command {
	var (
		out     catalogOutput
		pkg, ch string
		mode    string
		in      inputFlags
	)
	cmd := &cobra.Command{
		Use:   "graph-rebuild CATALOG --package P [--channel C] --mode M (--output-dir DIR | --output-db FILE | --in-place)",
		Short: "Rebuild channel upgrade graphs from bundle versions (semver, semver-skippatch) or CSVs (replaces)",
		Long:  graphRebuildLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if pkg == "" || mode == "" {
				return usageError{errors.New("--package and --mode are required")}
			}
			m, err := ops.ParseMode(mode)
			if err != nil {
				return usageError{err}
			}
			return editCatalog(cmd, args[0], in, out, nil, func(in *catalogInput) ([]string, error) {
				channels := []string{ch}
				if ch == "" {
					channels = packageChannels(in, pkg)
					if len(channels) == 0 {
						return nil, opError(errors.New("package " + pkg + " has no channels in " + args[0]))
					}
				}
				for _, c := range channels {
					if err := ops.RebuildChannel(in.cat, pkg, c, m); err != nil {
						return nil, opError(err)
					}
					// printed as each channel is done, so a later refusal still shows the earlier ones
					printNotes(cmd.ErrOrStderr(), []string{"rebuilt channel " + c + " of package " + pkg + " (" + mode + ")"})
				}
				return nil, nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&pkg, "package", "", "package whose channels to rebuild (required)")
	f.StringVar(&ch, "channel", "", "rebuild only this channel")
	f.StringVar(&mode, "mode", "", "replaces, semver or semver-skippatch (required)")
	addOutputFlags(f, &out)
	addInputFlags(f, &in)
	return cmd
}

func packageChannels(in *catalogInput, pkg string) []string {
	var out []string
	for _, c := range in.cat.Channels {
		if c.Package == pkg {
			out = append(out, c.Name)
		}
	}
	return out
}
