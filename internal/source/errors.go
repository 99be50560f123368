package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
	"github.com/olmcat/olmcat/internal/scratch"
	"github.com/olmcat/olmcat/sqlite"
)

// Problem is the kind of an input error. Each has one wording, used by every command.
type Problem string

// The input errors. A command that meets one exits 2.
const (
	NotFound          Problem = "not found"
	NotACatalog       Problem = "not a catalog"
	EmptyCatalog      Problem = "empty catalog"
	DamagedDatabase   Problem = "damaged index.db"
	UnsupportedSchema Problem = "unsupported index.db"
	BadImage          Problem = "bad image"
	// UnreadBundleImages: bundle images a catalog template names could not be pulled or read.
	UnreadBundleImages Problem = "bundle images could not be read"
	BadBundle          Problem = "bad bundle"
	BadTemplate        Problem = "bad catalog template"
	BadGitRevision     Problem = "bad git revision"
	Unreadable         Problem = "unreadable"
	TooLarge           Problem = "too large"
	NotHere            Problem = "not accepted here"
	OutputIsInput      Problem = "output overlaps an input"
)

// Error is an input that cannot be used. Its text is "REF: PROBLEM: DETAIL (HINT)", the same from
// every command for the same input.
type Error struct {
	Ref     string // the reference as the user gave it
	Problem Problem
	Detail  string // what exactly is wrong, one line
	Hint    string // what to do
	Err     error  // the cause, for errors.Is/As
}

func (e *Error) Error() string {
	msg := e.Ref + ": " + string(e.Problem)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// IsInputError reports whether err is (or wraps) an input error of this package.
func IsInputError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// refHint lists what a catalog reference may be.
const refHint = "give an FBC directory or file, an index.db, - for standard input, " +
	"or an image: REGISTRY/REPO:TAG, oci-layout:DIR[:TAG], docker-archive:FILE"

// classify turns an error met while opening or reading ref into an input error when it is one: a
// damaged or unsupported index.db, a file that vanished or cannot be read. Other errors (a failure
// of ours, cancellation, problems of the catalog's content) are returned as they are.
func classify(ref string, err error) error {
	if err == nil || IsInputError(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var (
		write *atomicout.WriteError
		name  *outpath.NameError
		temp  *scratch.CreateError
	)
	if errors.As(err, &write) || errors.As(err, &name) || errors.As(err, &temp) {
		return err // about the output or TMPDIR, not the input being read
	}
	var (
		corrupt     *sqlite.CorruptError
		unsupported *sqlite.UnsupportedVersionError
		missing     *sqlite.MissingSchemaError
		notDB       *sqlite.NotSQLiteError
	)
	switch {
	case errors.As(err, &corrupt):
		return &Error{Ref: ref, Problem: DamagedDatabase, Detail: corrupt.Detail,
			Hint: "the file is truncated or corrupt: copy it again, or re-extract it from its image", Err: err}
	case errors.As(err, &unsupported):
		return &Error{Ref: ref, Problem: UnsupportedSchema, Detail: strings.TrimPrefix(unsupported.Error(), unsupported.Path+": "), Err: err}
	case errors.As(err, &missing):
		return &Error{Ref: ref, Problem: DamagedDatabase, Detail: strings.TrimPrefix(missing.Error(), missing.Path+": "),
			Hint: "the file is not an index.db written by opm, or a table was dropped by hand", Err: err}
	case errors.As(err, &notDB):
		return &Error{Ref: ref, Problem: NotACatalog, Detail: "not a SQLite database: it looks like " + notDB.LooksLike, Hint: notDB.Hint, Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Ref: ref, Problem: NotFound, Detail: "it disappeared while being read", Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Ref: ref, Problem: Unreadable, Detail: "permission denied", Hint: "check the file's mode and owner", Err: err}
	}
	if msg := err.Error(); strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT") {
		return &Error{Ref: ref, Problem: DamagedDatabase, Detail: "a database page is corrupt",
			Hint: "the file is truncated or corrupt: copy it again, or re-extract it from its image", Err: err}
	}
	return err
}

// notFound is the error for a reference that names nothing.
func notFound(ref, detail string) *Error {
	return &Error{Ref: ref, Problem: NotFound, Detail: detail, Hint: refHint}
}

// Errorf builds an input error for callers that find a problem with an input themselves.
func Errorf(ref string, problem Problem, hint, format string, args ...any) *Error {
	return &Error{Ref: ref, Problem: problem, Detail: fmt.Sprintf(format, args...), Hint: hint}
}
