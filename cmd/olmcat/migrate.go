package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func init() { register(newMigrateCmd) }

const migrateLong = `Convert a legacy SQLite index (index.db) into a File-Based Catalog directory, as opm v1.72's
'opm migrate' did: OUT/<package>/catalog.json (or .yaml with -o yaml), byte for byte the files opm
wrote wherever opm succeeded. CATALOG may be any catalog reference (below): a File-Based Catalog is
rewritten in opm's layout (an unpacked one with its objects back inline). The index.db is only read (read-only and immutable: its bytes and
modification time do not change, and no journal file appears, even on read-only media). Indexes of
every schema version opm wrote (0 to 13) are read as they are, without upgrading them.

Where opm failed, panicked or silently lost data (bundles stranded by skips, a missing default
channel, empty or NULL versions, olm.constraint/olm.label dependencies, deprecated bundles, two
olm.package values, ...) olmcat still writes a valid catalog and reports each departure from opm:
a summary on stderr, the full list as JSON with --report FILE. --strict turns any departure into an
error and writes nothing.

--migrate-level bundle-object-to-csv-metadata replaces the manifests of image bundles with one
olm.csv.metadata property, as opm's option of the same name does.

OUT appears atomically (written beside it, then renamed); a non-empty OUT is replaced only with
--force. No output (OUT, --report, --oci-layout) may be, contain or lie inside CATALOG, with or
without --force. The report is written before OUT is moved into place: if it cannot be written,
nothing is.

` + migrateImageHelp + `

` + migrateToSQLiteHelp + `

` + migrateToTemplateHelp + `

` + referenceHelp

func newMigrateCmd() *cobra.Command {
	var (
		output, level, to, reportPath string
		layout                        string
		force                         bool
		toSQLite                      migrateToSQLiteOptions
		images                        migrateImageFlags
		in                            inputFlags
	)
	cmd := &cobra.Command{
		Use:   "migrate CATALOG OUT",
		Short: "Convert an index.db into a File-Based Catalog (or, with --to, any catalog into an index.db or catalog templates)",
		Long:  migrateLong,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains([]string{"fbc", "sqlite", toBasicTemplate, toSemverTemplate}, to) {
				return usageError{fmt.Errorf("--to must be fbc, sqlite, %s or %s, not %q", toBasicTemplate, toSemverTemplate, to)}
			}
			if to != toBasicTemplate && to != toSemverTemplate && cmd.Flags().Changed("template-layout") {
				return usageError{fmt.Errorf("--template-layout applies with --to %s or %s", toBasicTemplate, toSemverTemplate)}
			}
			format, err := fbc.ParseFormat(output)
			if err != nil {
				return usageError{err}
			}
			if in.migrateLevel, err = tofbc.ParseMigrateLevel(level); err != nil {
				return usageError{err}
			}
			if toSQLite.Permissive && to != "sqlite" {
				return usageError{errors.New("--permissive only applies with --to sqlite")}
			}
			if to == "sqlite" && cmd.Flags().Changed("output") {
				return usageError{errors.New("-o sets the format of FBC files; --to sqlite writes an index.db")}
			}
			dest, err := images.destination()
			if err != nil {
				return err
			}
			startProgress(cmd).Phase("reading")
			src, err := in.open(cmd, args[0])
			if err != nil {
				return err
			}
			defer src.Close()
			out := args[1]
			if err := guardMigrateOutputs(src, out, reportPath, dest); err != nil {
				return err
			}
			report, err := openReport(cmd, reportPath, force)
			if err != nil {
				return err
			}
			defer report.abort()
			if to == toBasicTemplate || to == toSemverTemplate {
				if err := checkTemplateFlags(cmd, dest); err != nil {
					return err
				}
				tf := fbc.YAML
				if cmd.Flags().Changed("output") {
					tf = format
				}
				return runMigrateToTemplates(cmd, src, out, report, convert.TemplateOptions{
					Semver: to == toSemverTemplate, Layout: layout, Format: tf, Force: force})
			}
			if to == "sqlite" {
				if dest != "" {
					return usageError{errors.New("--to-image and --oci-layout write an FBC index image; they do not apply with --to sqlite")}
				}
				toSQLite.Force = force
				return runMigrateToSQLite(cmd, src, out, report, toSQLite)
			}
			if images.server != "opm" && images.server != "olmcat" {
				return usageError{fmt.Errorf("--server must be opm or olmcat, not %q", images.server)}
			}
			if dest != "" && images.server == "opm" && src.Image() == nil {
				return usageError{errors.New("--to-image and --oci-layout need an index image as CATALOG (the new image is built on its layers); for a local catalog, use --server olmcat, or 'olmcat generate dockerfile OUT' and build that")}
			}
			if dest != "" && images.server == "opm" && src.Format() != source.FormatSQLite {
				return usageError{fmt.Errorf("%s is already a File-Based Catalog image (its catalog is at %s): there is nothing to migrate into a new image", src, src.Image().ImagePath)}
			}
			opts := convert.MigrateOptions{Format: format, Strict: toSQLite.Strict, Force: force}
			if err := runMigrateToFBC(cmd, src, out, report, opts); err != nil {
				return err
			}
			if dest == "" {
				return nil
			}
			return writeMigratedImage(cmd, src, out, dest, force, images)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "json", "output format: json or yaml")
	f.StringVar(&level, "migrate-level", "none", "none or bundle-object-to-csv-metadata")
	f.StringVar(&to, "to", "fbc", "what to write: fbc (a File-Based Catalog directory), sqlite (an index.db), basic-template or semver-template (a catalog template per package)")
	f.StringVar(&layout, "template-layout", convert.LayoutCatalogTemplates, "with --to basic-template or semver-template: catalog-templates (OUT/PKG/catalog-templates/TYPE.yaml) or flat (OUT/PKG.yaml)")
	f.StringVar(&reportPath, "report", "", "write the full report (departures from opm, or losses with --to sqlite) as JSON to FILE ('-' for stdout)")
	f.BoolVar(&force, "force", false, "replace an existing, non-empty output (never an input)")
	addMigrateToSQLiteFlags(f, &toSQLite)
	addInputFlags(f, &in)
	images.images = &in.images
	addMigrateImageFlags(f, &images)
	if strict := f.Lookup("strict"); strict != nil {
		strict.Usage = "write nothing and fail on any departure from opm migrate (or, with --to sqlite, on any loss)"
	}
	return cmd
}

// guardMigrateOutputs refuses outputs that overlap the input or each other.
func guardMigrateOutputs(src *source.Source, out, reportPath, imageDest string) error {
	outputs := []string{out}
	if reportPath != "" && reportPath != "-" {
		outputs = append(outputs, reportPath)
		if err := source.CheckOutputPaths(reportPath, out); err != nil {
			return usageError{fmt.Errorf("--report %s must not be, contain or lie inside the output %s", reportPath, out)}
		}
	}
	if p, ok := indeximage.LocalImagePath(imageDest); ok {
		outputs = append(outputs, p)
		// Issue 35 item 8: --oci-layout OUT/img was written into OUT after OUT was committed, and
		// failed half way ("expected blob size ..."); two outputs must not nest or share a path.
		if err := source.CheckOutputPaths(p, out); err != nil {
			return usageError{fmt.Errorf("the image output %s must not be, contain or lie inside the output %s: write them to separate paths", imageDest, out)}
		}
		if reportPath != "" && reportPath != "-" && source.CheckOutputPaths(p, reportPath) != nil {
			return usageError{fmt.Errorf("the image output %s must not be, contain or lie inside --report %s: write them to separate paths", imageDest, reportPath)}
		}
	}
	for _, o := range outputs {
		if err := source.CheckOutput(o, src); err != nil {
			return err
		}
	}
	return nil
}

func runMigrateToFBC(cmd *cobra.Command, src *source.Source, out string, report *reportOutput, opts convert.MigrateOptions) error {
	opts.BeforeCommit = func(sum *convert.Summary) error {
		if sum.Departures == nil {
			return report.write(emptyReport{Input: src.String(), Packages: sum.Packages, Bundles: sum.Bundles})
		}
		return report.write(sum.Departures)
	}
	activeProgress(cmd).Phase("converting")
	expectPackages(cmd, src)
	sum, err := convert.Migrate(cmd.Context(), src, out, opts)
	activeProgress(cmd).Close()
	stderr := summaryOut(cmd)
	if sum != nil && sum.Departures != nil {
		sum.Departures.WriteSummary(stderr, 20)
	}
	var strict *convert.StrictError
	if errors.As(err, &strict) {
		return exitError{code: exitFindings, err: err}
	}
	if err != nil {
		return loadFailure(src.String(), err)
	}
	if err := report.commit(); err != nil {
		return err
	}
	what := "File-Based Catalog"
	if sum.Departures != nil {
		what = fmt.Sprintf("index.db, schema version %d", sum.Departures.SchemaVersion)
	}
	fmt.Fprintf(stderr, "olmcat: migrated %s (%s): %s, %s into %s\n",
		src, what, plural.Of(sum.Packages, "package"), plural.Of(sum.Bundles, "bundle"), out)
	return nil
}

// emptyReport is the --report of a migration with no departures to report (an FBC input).
type emptyReport struct {
	Input      string   `json:"input"`
	Packages   int      `json:"packages"`
	Bundles    int      `json:"bundles"`
	Departures []string `json:"departures"`
}

func (r emptyReport) WriteJSON(w io.Writer) error {
	if r.Departures == nil {
		r.Departures = []string{}
	}
	return writeJSONDoc(w, r)
}
