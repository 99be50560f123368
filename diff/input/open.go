// Package input opens the two sides of a catalog diff: a File-Based Catalog directory or file, a
// SQLite index.db, an index image, or a catalog path at a git revision. What loads is returned even
// when part of it is broken: load problems travel with the side and become findings.
package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/olmcat/olmcat/convert/indeximage"
	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// Formats of a side, as reported in diff.SideSummary.Format.
const (
	FormatFBC    = "fbc"
	FormatSQLite = "sqlite"
)

// Options tune how inputs are opened.
type Options struct {
	Images indeximage.Options
}

// Open loads one side from a path or an image reference. An input that does not exist, or an image
// that cannot be fetched, is an error; an input that exists but is partly broken is a side with
// problems.
func Open(ctx context.Context, ref string, opts Options) (*diff.Side, error) {
	if _, err := os.Stat(ref); err != nil {
		if indeximage.IsImageRef(ref) {
			return openImage(ctx, ref, opts)
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory (give an FBC directory or file, an index.db, or an image reference)", ref)
		}
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return openPath(ref, ref)
}

// openPath loads a local catalog; source is how the side is named in the report.
func openPath(path, source string) (*diff.Side, error) {
	isDB, err := isSQLiteFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if isDB {
		return openSQLite(path, source)
	}
	return openFBC(path, source), nil
}

func openFBC(path, source string) *diff.Side {
	cat, err := fbc.Load(path)
	side := &diff.Side{Source: source, Format: FormatFBC, Catalog: cat}
	side.Problems = loadProblems(err)
	return side
}

func openSQLite(path, source string) (*diff.Side, error) {
	return nil, fmt.Errorf("%s: is an index.db; this build of olmcat cannot read index.db files in diff yet (convert it to FBC first)", path)
}

func openImage(ctx context.Context, ref string, opts Options) (*diff.Side, error) {
	img, err := indeximage.Fetch(ctx, ref, opts.Images)
	if err != nil {
		return nil, err
	}
	defer img.Cleanup()
	side, err := openPath(img.Path, ref)
	if err != nil {
		return nil, err
	}
	side.Format = "image/" + side.Format
	return side, nil
}

// loadProblems turns the loader's errors into issues, so that they compare and print like
// validation problems.
func loadProblems(err error) model.Issues {
	if err == nil {
		return nil
	}
	var lerrs *fbc.LoadErrors
	if !errors.As(err, &lerrs) {
		return model.Issues{{Severity: model.Error, Rule: "load-error", Message: err.Error()}}
	}
	out := make(model.Issues, 0, len(lerrs.Errs)+1)
	for _, e := range lerrs.Errs {
		i := &model.Issue{Severity: model.Error, Rule: "load-error", Loc: e.Loc, File: e.Loc.File, Line: e.Loc.Line,
			Package: e.Package, Message: e.Err.Error()}
		switch e.Schema {
		case fbc.SchemaBundle:
			i.Bundle = e.Name
		case fbc.SchemaChannel:
			i.Channel = e.Name
		case fbc.SchemaPackage:
			i.Package = e.Name
		}
		out = append(out, i)
	}
	if lerrs.Omitted > 0 {
		out = append(out, &model.Issue{Severity: model.Error, Rule: "load-error",
			Message: fmt.Sprintf("%d more load problems not listed", lerrs.Omitted)})
	}
	return out
}

// isSQLiteFile reports whether path is a regular file starting with the SQLite 3 header.
func isSQLiteFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "SQLite format 3\x00", nil
}
