package main

import (
	"bufio"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func init() { register(newRenderCmd) }

const renderLong = `Print catalogs as one File-Based Catalog stream on standard output, as 'opm render' does.

Each CATALOG is read as every command reads it (see below); an index.db is converted exactly as
'olmcat migrate' converts it, and the departures from opm are summed up on stderr. Blobs are written
grouped by package, packages in name order, as opm's writer does. An unpacked catalog is rendered
with its objects back in place.

A single index.db is converted and written one package at a time, so its size does not matter.

A directory holding manifests/ and metadata/ is a bundle directory: it is rendered as opm renders
one, as its olm.bundle blob with the image "" or, with --alpha-image-ref-template, the image the
template makes of its package, name (the CSV's) and version, e.g.
  olmcat render bundle/ --alpha-image-ref-template 'quay.io/ns/{{.Package}}-bundle:v{{.Version}}'
(as in opm v1.72, the template applies to bundle directories only: an index.db's and an image's
bundles have their images).

An image without the index labels but with the bundle labels is a bundle image: it is rendered as
opm renders one, as its olm.bundle blob with the reference as its image (see 'olmcat bundle
render'); --migrate-level applies to it as to the bundles of an index.db, to the bundles a catalog template
renders from images, as 'olmcat render-template --migrate-level' applies it, and to the bundles of
a File-Based Catalog, as opm render migrates every input (a bundle without an image, or whose
ClusterServiceVersion is missing, is left as it is, as opm leaves it).

` + referenceHelp

func newRenderCmd() *cobra.Command {
	var output, level string
	var migrateAll bool
	var in inputFlags
	in.imageRef = &imageRefTemplate{}
	cmd := &cobra.Command{
		Use:   "render CATALOG...",
		Short: "Print catalogs (FBC, index.db, images, ...) as one File-Based Catalog stream",
		Long:  renderLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := fbc.ParseFormat(output)
			if err != nil {
				return usageError{err}
			}
			if in.migrateLevel, err = tofbc.ParseMigrateLevel(level); err != nil {
				return usageError{err}
			}
			if migrateAll && cmd.Flags().Changed("migrate-level") {
				return usageError{errors.New("--migrate and --migrate-level exclude each other (--migrate is every migration there is)")}
			}
			if migrateAll {
				in.migrateLevel = tofbc.LevelCSVMetadata // opm's --migrate: every migration there is
			}
			// The catalog streams to stdout as it is read: on the same terminal the progress line
			// would cut into it, so auto shows it only when stdout goes elsewhere.
			if !isTerminal(cmd.OutOrStdout()) || progressAlways(cmd) {
				startProgress(cmd).Phase("rendering")
			}
			srcs, bundles, closeAll, err := openRenderInputs(cmd, in, args)
			if err != nil {
				return err
			}
			defer closeAll()
			return render(cmd, srcs, bundles, format, in.migrateLevel)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "json", "output format: json or yaml")
	cmd.Flags().StringVar(&level, "migrate-level", "none", "none or bundle-object-to-csv-metadata: for index.db inputs, bundle images and the bundles of catalog templates")
	cmd.Flags().BoolVar(&migrateAll, "migrate", false, "apply every migration there is, as opm render --migrate (today --migrate-level bundle-object-to-csv-metadata)")
	cmd.Flags().Var(in.imageRef, "alpha-image-ref-template", "the image of each bundle directory rendered (it has none of its own; opm renders \"\"), from {{.Package}}, {{.Name}} and {{.Version}}, e.g. quay.io/ns/{{.Package}}-bundle:v{{.Version}}")
	addInputFlags(cmd.Flags(), &in)
	return cmd
}

// render writes the catalogs of srcs and the bundles rendered from bundle images.
func render(cmd *cobra.Command, srcs []*source.Source, bundles *fbc.Catalog, format fbc.Format, level tofbc.MigrateLevel) error {
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<20)
	summarize := func(src *source.Source) {
		if r := src.Departures(); r != nil {
			summaryTo(summaryOut(cmd), func(w io.Writer) { r.WriteSummary(w, 20) })
		}
	}
	if len(srcs) == 1 && len(bundles.Bundles) == 0 {
		expectPackages(cmd, srcs[0])
		err := srcs[0].WalkPackages(cmd.Context(), func(_ string, c *fbc.Catalog) error {
			if err := migrateFBC(srcs[0], c, level); err != nil {
				return err
			}
			return fbc.Write(w, c, format)
		})
		summarize(srcs[0])
		if err != nil {
			return loadFailure(srcs[0].String(), err)
		}
		return w.Flush()
	}
	all := &fbc.Catalog{}
	all.Append(bundles)
	dups := duplicatePackages{}
	for _, src := range srcs {
		c, err := src.Load(cmd.Context())
		summarize(src)
		if err != nil {
			return loadFailure(src.String(), err)
		}
		if err := migrateFBC(src, c, level); err != nil {
			return err
		}
		dups.add(src.String(), c)
		all.Append(c)
	}
	dups.warn(cmd.ErrOrStderr())
	if err := fbc.Write(w, all, format); err != nil {
		return err
	}
	return w.Flush()
}
