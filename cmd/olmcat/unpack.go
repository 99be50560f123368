package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc/unpack"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newUnpackCmd) }

const unpackLong = `Lay a catalog out for reading and editing: one directory per package holding <package>.json
(the package's blobs, as opm writes them) and objects/<bundle>/ with each bundle object as a YAML
file named <name>_<group>_<version>_<kind>.yaml (no group part for core objects such as v1
Services). In <package>.json the bundles' olm.bundle.object properties become
{"ref": "objects/<bundle>/<file>"}; a .indexignore keeps catalog loaders out of objects/.

olmcat reads such a directory anywhere it takes a catalog, resolving the refs (a ref must stay
inside the catalog directory, symbolic links included); editing commands writing it out (e.g.
olmcat add UNPACKED ... --output-dir NEWDIR) put the objects back inline. Unpacking and reading back gives
the original catalog byte for byte. An object whose YAML form would not read back to the same bytes
(hand-written JSON with unsorted keys, say) is written as JSON, which is also valid YAML.

` + editInputHelp + `

OUTDIR appears atomically; a non-empty OUTDIR is replaced only with --force.

Exit codes: 0 unpacked, 2 bad usage or unreadable input.`

func newUnpackCmd() *cobra.Command {
	var force bool
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "unpack CATALOG OUTDIR",
		Short: "Unpack a catalog into per-package files with bundle objects as YAML files",
		Long:  unpackLong,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := in.open(cmd, args[0])
			if err != nil {
				return err
			}
			defer src.Close()
			if err := source.CheckOutput(args[1], src); err != nil {
				return err
			}
			input, err := loadCatalog(cmd, src)
			if err != nil {
				return err
			}
			if err := unpack.Unpack(input.cat, args[1], force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: unpacked %s into %s\n", args[0], args[1])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace a non-empty OUTDIR")
	addInputFlags(cmd.Flags(), &in)
	return cmd
}
