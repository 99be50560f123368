package main

// The FBC → index.db direction of `olmcat migrate` (--to sqlite). The migrate command (migrate.go)
// owns the arguments and the index.db → FBC direction; it registers these flags with
// addMigrateToSQLiteFlags and calls runMigrateToSQLite when --to sqlite is given.

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

const migrateToSQLiteHelp = `With --to sqlite, OUT is the index.db to write (CATALOG may be any catalog, an index.db too): a schema-13 SQLite index, as opm v1.72's
replaces-mode loader would have built it, which 'opm registry serve' (and olmcat serve) answer from
like 'opm serve' answers from the catalog, up to the known SQLite/FBC differences.

What an index.db cannot hold (deprecation messages, channel and package properties, package
descriptions, custom schemas, per-channel skipRanges, relatedImages names the CSV lacks, ...) is
never dropped silently: each is named in the loss report (--report FILE, JSON) and summed up on
stderr; --strict fails instead of writing. Parts stored in another form (a CSV synthesized from
olm.csv.metadata, an upgrade edge that reads back as a skip, ...) are listed as changes.

An invalid catalog is refused with the validation report; --permissive writes the valid part and
lists what was left out. OUT is written to a temporary file and renamed at the end; an existing
OUT is replaced only with --force.`

// migrateToSQLiteOptions are the settings of the FBC → index.db direction.
type migrateToSQLiteOptions struct {
	Strict     bool   // fail on any loss instead of reporting it
	Permissive bool   // write the valid part of an invalid catalog
	Force      bool   // replace an existing OUT
	ReportPath string // where to write the JSON loss report ("" for none, "-" for stdout)
}

// addMigrateToSQLiteFlags registers the flags that only the --to sqlite direction has.
func addMigrateToSQLiteFlags(fs *pflag.FlagSet, o *migrateToSQLiteOptions) {
	fs.BoolVar(&o.Strict, "strict", false, "with --to sqlite: fail, writing nothing, if any part of the catalog cannot be represented in an index.db")
	fs.BoolVar(&o.Permissive, "permissive", false, "with --to sqlite: write the valid part of an invalid catalog and report what was left out")
}

// runMigrateToSQLite converts the catalog of src into the index.db out.
func runMigrateToSQLite(cmd *cobra.Command, src *source.Source, out string, report *reportOutput, o migrateToSQLiteOptions) error {
	if o.Strict && o.Permissive {
		return usageError{errors.New("--strict and --permissive exclude each other")}
	}
	if !o.Force {
		if _, err := os.Stat(out); err == nil {
			return usageError{fmt.Errorf("output %s already exists: choose another path or pass --force to replace it", out)}
		}
	}
	activeProgress(cmd).Phase("converting")
	expectPackages(cmd, src)
	r, err := convert.ToSQLiteFromSource(cmd.Context(), src, out, convert.ToSQLiteOptions{
		Force: o.Force, Strict: o.Strict, Permissive: o.Permissive,
		BeforeCommit: func(r *convert.SQLiteReport) error { return report.write(r) },
	})
	var invalid *convert.InvalidCatalogError
	if errors.As(err, &invalid) {
		for _, i := range invalid.Issues {
			fmt.Fprintln(cmd.OutOrStdout(), i.Error())
		}
		return exitError{code: exitFindings, err: fmt.Errorf("%s is invalid (%s); nothing written. Fix the catalog, or pass --permissive to write the valid part",
			src, plural.Of(len(invalid.Issues), "error"))}
	}
	if r != nil {
		fmt.Fprint(cmd.ErrOrStderr(), textsafe.TerminalLines(r.Summary()))
	}
	var lossErr *convert.LossError
	if errors.As(err, &lossErr) {
		if werr := report.write(r); werr != nil {
			return werr
		}
		if werr := report.commit(); werr != nil {
			return werr
		}
		return exitError{code: exitFindings, err: err}
	}
	if err != nil {
		return err
	}
	return report.commit()
}
