package main

// --in-place on an FBC directory or file: only the blobs an edit changed are written, in the
// files they came from, in the style of those files; every other byte stays as it was.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/inplace"
	"github.com/olmcat/olmcat/internal/source"
)

// severalCatalogsError refuses an in-place edit of a root of several catalogs.
func severalCatalogsError(ref string, dirs []string) error {
	join := func(d string) string { return filepath.Join(ref, d) }
	return usageError{fmt.Errorf("%s holds several catalogs (%s and %s%s), with the same packages in each; --in-place edits one catalog and would merge them: give the catalog to edit instead, e.g. %s",
		ref, join(dirs[0]), join(dirs[1]), more(len(dirs)-2), join(dirs[len(dirs)-1]))}
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(", and %d more", n)
}

// writeFilesInPlace writes an edit of an FBC directory or file into its files (inplace.Write).
func writeFilesInPlace(stderr io.Writer, in *catalogInput, cat *fbc.Catalog, o catalogOutput) error {
	ref := in.src.Ref()
	if in.before == nil {
		return errors.New("in-place edit without a snapshot of the catalog")
	}
	t := inplace.Target{Root: ref.Path, Ref: ref.Raw, Format: in.format}
	if o.format != "" {
		t.Format = fbc.Format(o.format)
	}
	if ref.Form == source.FormFile {
		t.Root, t.Single = filepath.Dir(ref.Path), ref.Path
		if t.SingleName = in.before.FirstFile(); t.SingleName == "" {
			t.SingleName = filepath.Base(ref.Path)
		}
	}
	summary, err := inplace.Write(t, in.before, cat)
	var refused *inplace.RefusedError
	if errors.As(err, &refused) {
		return usageError{refused.Err}
	}
	if err != nil {
		return err
	}
	if len(summary) == 0 {
		fmt.Fprintf(stderr, "olmcat: %s unchanged: the edit changed no blob\n", ref.Raw)
		return nil
	}
	if t.Single != "" {
		fmt.Fprintf(stderr, "olmcat: edited %s in place\n", ref.Raw)
		return nil
	}
	fmt.Fprintf(stderr, "olmcat: edited %s in place: %s\n", ref.Raw, strings.Join(firstOf(summary, 8), ", "))
	return nil
}

func firstOf(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}

// checkInPlaceFormat refuses -o with --in-place on FBC files of another format: an in-place edit
// keeps each file's format.
func (o catalogOutput) checkInPlaceFormat(c *fbc.Catalog) error {
	if o.format == "" {
		return nil
	}
	for f := range catalogFiles(c) {
		ext := strings.ToLower(filepath.Ext(f))
		isYAML := ext == ".yaml" || ext == ".yml"
		if isYAML != (fbc.Format(o.format) == fbc.YAML) {
			return usageError{fmt.Errorf("--in-place keeps each file in its format, and %s is not %s: to convert the catalog, write it with --output-dir DIR -o %s", f, o.format, o.format)}
		}
	}
	return nil
}

// inPlaceFBC reports whether an in-place edit of src edits files (an FBC directory or file).
func inPlaceFBC(src *source.Source) bool {
	ref := src.Ref()
	return src.Format() == source.FormatFBC && src.Template() == "" && (ref.Form == source.FormDir || ref.Form == source.FormFile)
}
