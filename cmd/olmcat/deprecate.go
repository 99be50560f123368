package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newDeprecateCmd) }

const deprecateLong = `Deprecate a package, a channel or a bundle: write an olm.deprecations entry with a message,
which OLM shows to users (olmcat inspect and olmcat serve surface it too).

  olmcat deprecate CATALOG --package P [--channel C | --bundle B] --message M (--output-dir DIR | --output-db FILE | --in-place)
  olmcat deprecate CATALOG --package P [--channel C | --bundle B] --undo (--output-dir DIR | --output-db FILE | --in-place)

The object must exist. Deprecating it again replaces the message; --undo removes the deprecation.

Catalogs written before olm.deprecations existed may mark channels with an olm.deprecated.channel
property ({"message": ..., "fallback": [channels]}). Every run converts those into olm.deprecations
entries (the fallback channels are named in the message) and removes the properties;
--convert-legacy does only that, with no --package needed.

` + editInputHelp + `

` + editOutputHelp + `

Exit codes: 0 done, 1 refused (unknown package/channel/bundle, no message, ...), 2 bad usage or
unreadable input.`

func newDeprecateCmd() *cobra.Command {
	var (
		out           catalogOutput
		opts          ops.DeprecateOptions
		convertLegacy bool
		in            inputFlags
	)
	cmd := &cobra.Command{
		Use:   "deprecate CATALOG --package P [--channel C | --bundle B] --message M (--output-dir DIR | --output-db FILE | --in-place)",
		Short: "Deprecate a package, channel or bundle (olm.deprecations), or convert legacy channel deprecations",
		Long:  deprecateLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if opts.Package == "" && !convertLegacy {
				return usageError{errors.New("--package is required (or --convert-legacy alone)")}
			}
			if opts.Undo && opts.Message != "" {
				return usageError{errors.New("--undo takes no --message")}
			}
			return editCatalog(cmd, args[0], in, out, nil, func(in *catalogInput) ([]string, error) {
				if out.db != "" || (out.inPlace && in.src.Format() == source.FormatSQLite) {
					return nil, usageError{errors.New("an index.db cannot hold deprecation messages: write the result as an FBC directory (--output-dir DIR)")}
				}
				notes, err := ops.ConvertLegacyDeprecations(in.cat)
				if err != nil {
					return nil, opError(err)
				}
				if opts.Package != "" {
					more, err := ops.Deprecate(in.cat, opts)
					if err != nil {
						return nil, opError(err)
					}
					notes = append(notes, more...)
				}
				if len(notes) == 0 {
					notes = []string{"no legacy channel deprecations found; nothing changed"}
				}
				return notes, nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Package, "package", "", "package to deprecate, or whose channel or bundle to deprecate")
	f.StringVar(&opts.Channel, "channel", "", "deprecate this channel")
	f.StringVar(&opts.Bundle, "bundle", "", "deprecate this bundle")
	f.StringVar(&opts.Message, "message", "", "what users should know and do instead")
	f.BoolVar(&opts.Undo, "undo", false, "remove the deprecation instead")
	f.BoolVar(&convertLegacy, "convert-legacy", false, "only convert olm.deprecated.channel properties")
	addOutputFlags(f, &out)
	addInputFlags(f, &in)
	return cmd
}
