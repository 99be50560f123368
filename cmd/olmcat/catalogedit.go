package main

// Reading and writing catalogs for the commands that edit one (add, rm, deprecate, graph-rebuild)
// or read one (inspect, unpack).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/inplace"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// catalogInput is a catalog read whole, with what is needed to write it back in place.
type catalogInput struct {
	src    *source.Source
	cat    *fbc.Catalog
	format fbc.Format // of an FBC input, as its file names say
	// before is the catalog's blobs as loaded, for an in-place edit of FBC files (nil otherwise).
	before *inplace.Snapshot
}

const editInputHelp = referenceHelp + `
An unpacked catalog is written back with its objects inline.`

// readCatalog opens and loads a whole catalog; close the input's source when done.
func readCatalog(cmd *cobra.Command, ref string, in inputFlags) (*catalogInput, error) {
	src, err := in.open(cmd, ref)
	if err != nil {
		return nil, err
	}
	input, err := loadCatalog(cmd, src)
	if err != nil {
		src.Close()
		return nil, err
	}
	return input, nil
}

// loadCatalog loads a whole catalog. A catalog that does not load cleanly is refused: an edit must
// not silently drop the blobs that failed to load.
func loadCatalog(cmd *cobra.Command, src *source.Source) (*catalogInput, error) {
	cat, err := src.Load(cmd.Context())
	if r := src.Departures(); r != nil {
		summaryTo(cmd.ErrOrStderr(), func(w io.Writer) { r.WriteSummary(w, 5) })
	}
	if err != nil {
		return nil, loadFailure(src.String(), err)
	}
	format := fbc.JSON
	if src.Format() == source.FormatFBC && src.Template() == "" { // a template renders to JSON, as render-template prints it
		format = formatOfFiles(cat)
	}
	return &catalogInput{src: src, cat: cat, format: format}, nil
}

func loadFailure(ref string, err error) error {
	if source.IsInputError(err) {
		return err
	}
	issues, ierr := model.LoadIssues(err)
	if ierr != nil || len(issues) == 0 {
		return err
	}
	return doesNotLoad(ref, issues)
}

// doesNotLoad refuses a catalog that did not load cleanly, listing the problems.
func doesNotLoad(ref string, issues model.Issues) error {
	lines := make([]string, len(issues))
	for i, issue := range issues {
		lines[i] = textsafe.Terminal(issue.Error()) // one line each, whatever the catalog holds
	}
	return usageError{fmt.Errorf("%s does not load (%s); fix it first (olmcat validate shows every problem):\n%s",
		ref, plural.Of(len(issues), "problem"), strings.Join(lines, "\n"))}
}

// formatOfFiles says YAML when every file that held blobs is named .yaml or .yml.
func formatOfFiles(c *fbc.Catalog) fbc.Format {
	files := catalogFiles(c)
	if len(files) == 0 {
		return fbc.JSON
	}
	for f := range files {
		if ext := strings.ToLower(filepath.Ext(f)); ext != ".yaml" && ext != ".yml" {
			return fbc.JSON
		}
	}
	return fbc.YAML
}

// catalogFiles is the set of files (as the loader named them) that held at least one blob.
func catalogFiles(c *fbc.Catalog) map[string]bool {
	files := map[string]bool{}
	for _, p := range c.Packages {
		files[p.Loc.File] = true
	}
	for _, ch := range c.Channels {
		files[ch.Loc.File] = true
	}
	for _, b := range c.Bundles {
		files[b.Loc.File] = true
	}
	for _, d := range c.Deprecations {
		files[d.Loc.File] = true
	}
	for _, o := range c.Others {
		files[o.Loc.File] = true
	}
	delete(files, "")
	return files
}

// catalogOutput is where an edited catalog goes.
type catalogOutput struct {
	dir     string
	db      string
	inPlace bool
	format  string
	force   bool
	// Old spellings, refused with the new one named.
	oldFormat, oldTo string
}

const editOutputHelp = `The result is written atomically (to a temporary sibling, then renamed), and only when the
whole operation succeeded and the changed packages are still valid; otherwise nothing is written:
  --output-dir DIR   write an FBC directory, laid out as opm does (DIR/<package>/catalog.json, or
                     .yaml with -o yaml); a non-empty DIR is replaced only with --force.
  --output-db FILE   write a schema-13 index.db instead.
  --in-place         edit CATALOG itself. In an FBC directory or file only the blobs the edit
                     changes are written, where they stand, in their file's format (JSON or YAML)
                     and key order; removed blobs are cut out (a file left without blobs is
                     deleted, and a directory it leaves empty); new blobs go into the file of
                     their package's olm.package blob, a new package into <package>/catalog.<ext>
                     (-o, or the format of the catalog's files). Every other file and byte stays
                     as it is, so 'git diff' shows just the edit. A directory holding several
                     catalogs with the same packages (catalogs/v4.17, catalogs/v4.18) is refused:
                     give the one to edit. An index.db is rewritten as such.
No output may be, contain or lie inside an input, with or without --force (--in-place is the way
to edit CATALOG).`

func addOutputFlags(fs *pflag.FlagSet, o *catalogOutput) {
	fs.StringVar(&o.dir, "output-dir", "", "write the result to this FBC directory")
	fs.StringVar(&o.db, "output-db", "", "write the result to this index.db file")
	fs.BoolVar(&o.inPlace, "in-place", false, "edit CATALOG itself: only the changed blobs, in their files")
	fs.StringVarP(&o.format, "output", "o", "", "FBC file format: json or yaml (default json; with --in-place, of a new package's file, default the catalog's)")
	fs.BoolVar(&o.force, "force", false, "replace a non-empty output")
	fs.StringVar(&o.oldFormat, "format", "", "")
	fs.StringVar(&o.oldTo, "to", "", "")
	fs.Lookup("format").Hidden = true
	fs.Lookup("to").Hidden = true
}

func (o catalogOutput) check() error {
	switch {
	case o.oldFormat != "":
		return usageError{fmt.Errorf("--format is now -o/--output, the output format in every olmcat command: use -o %s", o.oldFormat)}
	case o.oldTo == "sqlite":
		return usageError{errors.New("--to sqlite is now --output-db FILE: give the index.db to write")}
	case o.oldTo != "":
		return usageError{errors.New("--to is gone: write an FBC directory with --output-dir DIR, an index.db with --output-db FILE")}
	}
	if o.format != "" {
		if _, err := fbc.ParseFormat(o.format); err != nil {
			return usageError{fmt.Errorf("-o is the output format (json or yaml) in every olmcat command, not %q; "+
				"to write the result to a directory use --output-dir %s", o.format, o.format)}
		}
	}
	n := 0
	for _, set := range []bool{o.dir != "", o.db != "", o.inPlace} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return usageError{errors.New("say where the result goes: --output-dir DIR, --output-db FILE, or --in-place to edit CATALOG")}
	case n > 1:
		return usageError{errors.New("--output-dir, --output-db and --in-place exclude each other")}
	case o.db != "" && o.format != "":
		return usageError{errors.New("-o sets the format of FBC files; --output-db writes an index.db")}
	}
	return nil
}

// guard refuses an output that overlaps an input (see source.CheckOutput); extra are more input
// paths (bundle directories, ...).
func (o catalogOutput) guard(src *source.Source, extra ...string) error {
	out := o.dir
	if o.db != "" {
		out = o.db
	}
	if out == "" {
		return nil
	}
	if err := source.CheckOutput(out, src); err != nil {
		return err
	}
	return source.CheckOutputPaths(out, extra...)
}

// writeCatalog writes the edited catalog where o says.
func writeCatalog(cmd *cobra.Command, in *catalogInput, cat *fbc.Catalog, o catalogOutput) error {
	format := in.format
	if o.format != "" {
		format = fbc.Format(o.format)
	} else if !o.inPlace {
		format = fbc.JSON
	}
	ctx, stderr := cmd.Context(), cmd.ErrOrStderr()
	switch {
	case o.db != "":
		return writeIndexDB(ctx, cat, o.db, o.force, stderr)
	case o.dir != "":
		if err := ops.WriteDir(cat, o.dir, format, o.force); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "olmcat: wrote %s\n", o.dir)
		return nil
	}
	ref := in.src.Ref()
	if t := in.src.Template(); t != "" {
		return usageError{fmt.Errorf("--in-place would replace the catalog template %s (%s) with the catalog rendered from it: edit the template, or write the result with --output-dir DIR", ref.Raw, t)}
	}
	switch ref.Form {
	case source.FormIndexDB:
		return writeIndexDB(ctx, cat, ref.Path, true, stderr)
	case source.FormFile:
		if in.before != nil {
			return writeFilesInPlace(stderr, in, cat, o)
		}
		if err := ops.WriteFile(cat, ref.Path, format, true); err != nil {
			return err
		}
	case source.FormDir:
		return writeFilesInPlace(stderr, in, cat, o)
	default:
		return usageError{fmt.Errorf("cannot write in place to %s (%s): use --output-dir DIR or --output-db FILE", ref.Raw, ref.Form)}
	}
	fmt.Fprintf(stderr, "olmcat: rewrote %s\n", ref.Raw)
	return nil
}

func writeIndexDB(ctx context.Context, cat *fbc.Catalog, path string, force bool, stderr io.Writer) error {
	report, err := convert.ToSQLite(ctx, cat, path, convert.ToSQLiteOptions{Force: force})
	if report != nil {
		fmt.Fprint(stderr, report.Summary())
	}
	return err
}

// editCatalog is the body of the commands that edit a catalog: it reads the catalog at ref, applies
// edit, prints the notes edit returns and writes the result as the output flags say. edit's error
// is returned as it is (an operation's refusal goes through opError). extraInputs are other paths
// the command reads, which the output must not touch either.
func editCatalog(cmd *cobra.Command, ref string, inFlags inputFlags, out catalogOutput, extraInputs []string, edit func(in *catalogInput) ([]string, error)) error {
	src, err := inFlags.open(cmd, ref)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := out.guard(src, extraInputs...); err != nil {
		return err
	}
	in, err := loadCatalog(cmd, src)
	if err != nil {
		return err
	}
	if out.inPlace && inPlaceFBC(src) {
		if dirs := inplace.SeveralCatalogs(in.cat); dirs != nil {
			return severalCatalogsError(src.Ref().Raw, dirs)
		}
		if err := out.checkInPlaceFormat(in.cat); err != nil {
			return err
		}
		if in.before, err = inplace.TakeSnapshot(in.cat); err != nil {
			return err
		}
	}
	notes, err := edit(in)
	if err != nil {
		return err
	}
	printNotes(cmd.ErrOrStderr(), notes)
	return writeCatalog(cmd, in, in.cat, out)
}

func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, "olmcat: "+textsafe.TerminalLines(n))
	}
}

// opError turns an operation's refusal into a findings exit (1): the input was readable, the
// edit is what cannot be done.
func opError(err error) error {
	if err == nil {
		return nil
	}
	return exitError{code: exitFindings, err: err}
}
