package main

// Reading and writing catalogs for the commands that edit one (add, rm, deprecate, graph-rebuild)
// or read one (inspect, unpack).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/fbc/unpack"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// Kinds of catalog input.
const (
	inputFBCDir  = "FBC directory"
	inputFBCFile = "FBC file"
	inputStdin   = "standard input"
	inputSQLite  = "index.db"
	inputImage   = "index image"
)

// catalogInput is a catalog read whole, with what is needed to write it back in place.
type catalogInput struct {
	ref    string
	kind   string
	cat    *fbc.Catalog
	format fbc.Format // of an FBC input, as its file names say
}

const editInputHelp = `CATALOG is an FBC directory or file, - for standard input, an index.db, or an index image
(registry reference, oci-layout:DIR, docker-archive:FILE). An unpacked catalog (olmcat unpack) is
read with its olm.bundle.object refs resolved.`

// readCatalog loads a whole catalog. A catalog that does not load cleanly is refused: an edit
// must not silently drop the blobs that failed to load.
func readCatalog(ctx context.Context, ref string, images indeximage.Options, stderr io.Writer) (*catalogInput, error) {
	if ref == "-" {
		cat, err := fbc.LoadReader(os.Stdin, fbc.StdinName)
		if err != nil {
			return nil, loadFailure(ref, err)
		}
		if err := unpack.ResolveRefs(ref, cat); err != nil {
			return nil, usageError{err}
		}
		return &catalogInput{ref: ref, kind: inputStdin, cat: cat, format: fbc.JSON}, nil
	}
	fi, err := os.Stat(ref)
	if err != nil {
		if indeximage.IsImageRef(ref) {
			return readImage(ctx, ref, images, stderr)
		}
		return nil, usageError{fmt.Errorf("cannot read %s: %w (give an FBC directory or file, an index.db, or an image reference)", ref, err)}
	}
	if isDB, err := sqlite.IsSQLiteFile(ref); err != nil {
		return nil, usageError{fmt.Errorf("cannot read %s: %w", ref, err)}
	} else if isDB {
		cat, err := readIndexDB(ctx, ref, stderr)
		if err != nil {
			return nil, err
		}
		return &catalogInput{ref: ref, kind: inputSQLite, cat: cat, format: fbc.JSON}, nil
	}
	cat, err := fbc.Load(ref)
	if err != nil {
		return nil, loadFailure(ref, err)
	}
	if err := unpack.ResolveRefs(ref, cat); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", ref, err)}
	}
	in := &catalogInput{ref: ref, kind: inputFBCFile, cat: cat, format: formatOfFiles(cat)}
	if fi.IsDir() {
		in.kind = inputFBCDir
	}
	return in, nil
}

func loadFailure(ref string, err error) error {
	issues, ierr := model.LoadIssues(err)
	if ierr != nil || len(issues) == 0 {
		return usageError{fmt.Errorf("cannot read %s: %w", ref, err)}
	}
	return usageError{fmt.Errorf("%s does not load (%s); fix it first (olmcat validate shows every problem):\n%s",
		ref, plural(len(issues), "problem"), issues.Error())}
}

func readIndexDB(ctx context.Context, path string, stderr io.Writer) (*fbc.Catalog, error) {
	db, err := sqlite.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer db.Close()
	cat := &fbc.Catalog{}
	report, err := tofbc.Convert(ctx, db, tofbc.Options{}, func(_ string, c *fbc.Catalog) error {
		cat.Append(c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	report.WriteSummary(stderr, 5)
	return cat, nil
}

func readImage(ctx context.Context, ref string, images indeximage.Options, stderr io.Writer) (*catalogInput, error) {
	img, err := indeximage.Fetch(ctx, ref, images)
	if err != nil {
		return nil, usageError{err}
	}
	defer img.Cleanup()
	in, err := readCatalog(ctx, img.Path, images, stderr)
	if err != nil {
		return nil, err
	}
	in.ref, in.kind = ref, inputImage
	return in, nil
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
	inPlace bool
	format  string
	to      string
	force   bool
}

const editOutputHelp = `The result is written atomically (to a temporary sibling, then renamed), and only when the
whole operation succeeded and the changed packages are still valid; otherwise nothing is written:
  -o DIR          write an FBC directory, laid out as opm does (DIR/<package>/catalog.json, or .yaml
                  with --format yaml); a non-empty DIR is replaced only with --force.
  -o FILE --to sqlite   write a schema-13 index.db instead.
  --in-place      replace CATALOG itself: an FBC directory is rewritten in the layout above (in the
                  format of its files unless --format is given), an FBC file or an index.db is
                  rewritten as such. Files in the directory that are not catalog files (README,
                  unpacked objects/, files an .indexignore hides) would be lost, so --in-place
                  refuses to run while there are any, unless --force.`

func addOutputFlags(fs *pflag.FlagSet, o *catalogOutput) {
	fs.StringVarP(&o.dir, "output", "o", "", "write the result to this FBC directory (or index.db with --to sqlite)")
	fs.BoolVar(&o.inPlace, "in-place", false, "replace CATALOG with the result")
	fs.StringVar(&o.format, "format", "", "FBC file format: json or yaml (default json, or the input's format with --in-place)")
	fs.StringVar(&o.to, "to", "fbc", "output kind with -o: fbc or sqlite")
	fs.BoolVar(&o.force, "force", false, "replace a non-empty output; with --in-place, drop non-catalog files of CATALOG")
}

func (o catalogOutput) check() error {
	switch {
	case o.dir == "" && !o.inPlace:
		return usageError{errors.New("say where the result goes: -o DIR, or --in-place to replace CATALOG")}
	case o.dir != "" && o.inPlace:
		return usageError{errors.New("-o and --in-place exclude each other")}
	case o.to != "fbc" && o.to != "sqlite":
		return usageError{fmt.Errorf("--to must be fbc or sqlite, not %q", o.to)}
	case o.inPlace && o.to != "fbc":
		return usageError{errors.New("--to applies to -o; --in-place keeps CATALOG's own kind")}
	}
	if o.format != "" {
		if _, err := fbc.ParseFormat(o.format); err != nil {
			return usageError{err}
		}
	}
	return nil
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
	case !o.inPlace && o.to == "sqlite":
		return writeIndexDB(ctx, cat, o.dir, o.force, stderr)
	case !o.inPlace:
		if err := ops.WriteDir(cat, o.dir, format, o.force); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "olmcat: wrote %s\n", o.dir)
		return nil
	}
	switch in.kind {
	case inputSQLite:
		return writeIndexDB(ctx, cat, in.ref, true, stderr)
	case inputFBCFile:
		if err := ops.WriteFile(cat, in.ref, format, true); err != nil {
			return err
		}
	case inputFBCDir:
		if foreign, err := nonCatalogFiles(in.ref, catalogFiles(in.cat)); err != nil {
			return err
		} else if len(foreign) > 0 && !o.force {
			return usageError{fmt.Errorf("--in-place would replace %s, losing %s that are not catalog files (%s); write with -o DIR instead, or pass --force",
				in.ref, plural(len(foreign), "file"), strings.Join(firstN(foreign, 5), ", "))}
		}
		if err := ops.WriteDir(cat, in.ref, format, true); err != nil {
			return err
		}
	default:
		return usageError{fmt.Errorf("cannot write in place to %s (%s): use -o", in.ref, in.kind)}
	}
	fmt.Fprintf(stderr, "olmcat: rewrote %s\n", in.ref)
	return nil
}

func writeIndexDB(ctx context.Context, cat *fbc.Catalog, path string, force bool, stderr io.Writer) error {
	report, err := convert.ToSQLite(ctx, cat, path, convert.ToSQLiteOptions{Force: force})
	if report != nil {
		fmt.Fprint(stderr, report.Summary())
	}
	return err
}

// nonCatalogFiles lists the regular files under dir that held no blob.
func nonCatalogFiles(dir string, catalog map[string]bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !catalog[filepath.ToSlash(rel)] && !catalog[rel] {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}

// editCatalog is the body of the commands that edit a catalog: it reads the catalog at ref, applies
// edit, prints the notes edit returns and writes the result as the output flags say. edit's error
// is returned as it is (an operation's refusal goes through opError).
func editCatalog(cmd *cobra.Command, ref string, images indeximage.Options, out catalogOutput, edit func(in *catalogInput) ([]string, error)) error {
	in, err := readCatalog(cmd.Context(), ref, images, cmd.ErrOrStderr())
	if err != nil {
		return err
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
		fmt.Fprintln(w, "olmcat: "+n)
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
