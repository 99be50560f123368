package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func init() { register(newMigrateCmd) }

const migrateLong = `Convert a legacy SQLite index (index.db) into a File-Based Catalog directory, as opm v1.72's
'opm migrate' did: OUTDIR/<package>/catalog.json (or .yaml with -o yaml), byte for byte the files opm
wrote wherever opm succeeded. The index.db is only read (read-only and immutable: its bytes and
modification time do not change, and no journal file appears, even on read-only media). Indexes of
every schema version opm wrote (0 to 13) are read as they are, without upgrading them.

Where opm failed, panicked or silently lost data (bundles stranded by skips, a missing default
channel, empty or NULL versions, olm.constraint/olm.label dependencies, deprecated bundles, two
olm.package values, ...) olmcat still writes a valid catalog and reports each departure from opm:
a summary on stderr, the full list as JSON with --report FILE. --strict turns any departure into an
error and writes nothing.

--migrate-level bundle-object-to-csv-metadata replaces the manifests of image bundles with one
olm.csv.metadata property, as opm's option of the same name does.

OUTDIR appears atomically (written beside it, then renamed); a non-empty OUTDIR is replaced only
with --force.

` + migrateImageHelp + `

` + migrateToSQLiteHelp

func newMigrateCmd() *cobra.Command {
	var (
		output, level, to, reportPath string
		force                         bool
		toSQLite                      migrateToSQLiteOptions
		images                        migrateImageFlags
	)
	cmd := &cobra.Command{
		Use:   "migrate INPUT OUTDIR",
		Short: "Convert an index.db into a File-Based Catalog (or, with --to sqlite, the reverse)",
		Long:  migrateLong,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch to {
			case "sqlite":
				toSQLite.Force, toSQLite.ReportPath = force, reportPath
				return runMigrateToSQLite(cmd, args[0], args[1], toSQLite)
			case "fbc":
			default:
				return usageError{fmt.Errorf("--to must be fbc or sqlite, not %q", to)}
			}
			format, err := fbc.ParseFormat(output)
			if err != nil {
				return usageError{err}
			}
			lvl, err := tofbc.ParseMigrateLevel(level)
			if err != nil {
				return usageError{err}
			}
			if toSQLite.Permissive {
				return usageError{errors.New("--permissive only applies with --to sqlite")}
			}
			opts := convert.MigrateOptions{
				Options: tofbc.Options{MigrateLevel: lvl}, Format: format, Strict: toSQLite.Strict, Force: force,
			}
			if _, err := os.Stat(args[0]); err != nil && indeximage.IsImageRef(args[0]) {
				return runMigrateImage(cmd, args[0], args[1], reportPath, opts, images)
			}
			if err := checkMigrateImageFlags(images); err != nil {
				return err
			}
			return runMigrateToFBC(cmd, args[0], args[1], reportPath, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "json", "output format: json or yaml")
	f.StringVar(&level, "migrate-level", "none", "none or bundle-object-to-csv-metadata")
	f.StringVar(&to, "to", "fbc", "direction: fbc (index.db -> File-Based Catalog) or sqlite (File-Based Catalog -> index.db)")
	f.StringVar(&reportPath, "report", "", "write the full report (departures from opm, or losses with --to sqlite) as JSON to FILE ('-' for stdout)")
	f.BoolVar(&force, "force", false, "replace an existing, non-empty output")
	addMigrateToSQLiteFlags(f, &toSQLite)
	addMigrateImageFlags(f, &images)
	if strict := f.Lookup("strict"); strict != nil {
		strict.Usage = "write nothing and fail on any departure from opm migrate (or, with --to sqlite, on any loss)"
	}
	return cmd
}

func runMigrateToFBC(cmd *cobra.Command, in, out, reportPath string, opts convert.MigrateOptions) error {
	if _, err := os.Stat(in); err != nil {
		return usageError{fmt.Errorf("cannot read %s: %w", in, err)}
	}
	if isDB, err := sqlite.IsSQLiteFile(in); err == nil && !isDB {
		if fi, serr := os.Stat(in); serr == nil && fi.IsDir() {
			return usageError{fmt.Errorf("%s is a directory, not an index.db; to turn a File-Based Catalog into an index.db use --to sqlite", in)}
		}
	}
	if !opts.Force {
		if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
			return usageError{fmt.Errorf("output directory %s is not empty: choose another path or pass --force to replace it", out)}
		}
	}
	report, err := convert.MigrateSQLite(cmd.Context(), in, out, opts)
	if report != nil {
		if werr := writeReport(cmd, report, reportPath); werr != nil && err == nil {
			err = werr
		}
		report.WriteSummary(cmd.ErrOrStderr(), 20)
		if err == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: migrated %s (schema version %d): %d packages, %d bundles into %s\n",
				in, report.SchemaVersion, report.Packages, report.Bundles, out)
		}
	}
	var strict *convert.StrictError
	if errors.As(err, &strict) {
		return exitError{code: exitFindings, err: err}
	}
	var notDB *sqlite.NotSQLiteError
	if errors.As(err, &notDB) {
		return usageError{err}
	}
	return err
}

// jsonReport is a conversion report that writes itself as JSON.
type jsonReport interface{ WriteJSON(io.Writer) error }

// writeReport writes a conversion report to --report's path: nowhere for "", standard output for
// "-", else a file replaced atomically.
func writeReport(cmd *cobra.Command, r jsonReport, path string) error {
	switch path {
	case "":
		return nil
	case "-":
		return r.WriteJSON(cmd.OutOrStdout())
	}
	t, err := atomicout.File(path, true)
	if err != nil {
		return err
	}
	defer t.Abort()
	f, err := os.Create(t.Path())
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := r.WriteJSON(f); err != nil {
		f.Close()
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return t.Commit()
}
