package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func init() { register(newRenderCmd) }

const renderLong = `Print catalogs as one File-Based Catalog stream on standard output, as 'opm render' does.

Each INPUT is a File-Based Catalog (a directory, a JSON or YAML file, or - for standard input) or a
legacy SQLite index (index.db, recognized by its SQLite header whatever the file is called), which
is converted exactly as 'olmcat migrate' converts it; the departures from opm are summed up on
stderr. Blobs are written grouped by package, packages in name order, as opm's writer does.

A single index.db is converted and written one package at a time, so its size does not matter.`

func newRenderCmd() *cobra.Command {
	var output, level string
	var imgOpts indeximage.Options
	cmd := &cobra.Command{
		Use:   "render INPUT...",
		Short: "Print FBC directories/files and index.db files as one File-Based Catalog stream",
		Long:  renderLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := fbc.ParseFormat(output)
			if err != nil {
				return usageError{err}
			}
			lvl, err := tofbc.ParseMigrateLevel(level)
			if err != nil {
				return usageError{err}
			}
			args, cleanup, err := localInputs(cmd.Context(), args, imgOpts)
			if err != nil {
				return err
			}
			defer cleanup()
			for _, in := range args {
				if in == "-" {
					continue
				}
				if _, err := os.Stat(in); err != nil {
					return usageError{fmt.Errorf("cannot read %s: %w", in, err)}
				}
			}
			return render(cmd, args, format, tofbc.Options{MigrateLevel: lvl})
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "json", "output format: json or yaml")
	cmd.Flags().StringVar(&level, "migrate-level", "none", "for index.db inputs: none or bundle-object-to-csv-metadata")
	addImageFlags(cmd.Flags(), &imgOpts)
	return cmd
}

func render(cmd *cobra.Command, inputs []string, format fbc.Format, opts tofbc.Options) error {
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<20)
	if len(inputs) == 1 {
		report, err := convert.WalkCatalog(cmd.Context(), inputs[0], opts, func(_ string, c *fbc.Catalog) error {
			return fbc.Write(w, c, format)
		})
		if report != nil {
			report.WriteSummary(cmd.ErrOrStderr(), 20)
		}
		if err != nil {
			return renderError(err)
		}
		return w.Flush()
	}
	all := &fbc.Catalog{}
	for _, in := range inputs {
		c, report, err := convert.LoadCatalog(cmd.Context(), in, opts)
		if report != nil {
			report.WriteSummary(cmd.ErrOrStderr(), 20)
		}
		if err != nil {
			return renderError(err)
		}
		all.Append(c)
	}
	if err := fbc.Write(w, all, format); err != nil {
		return err
	}
	return w.Flush()
}

// renderError marks input problems as such (exit 2 for a file that is not a catalog at all).
func renderError(err error) error {
	var notDB *sqlite.NotSQLiteError
	if errors.As(err, &notDB) {
		return usageError{err}
	}
	return err
}
