package sqlite

import (
	"errors"
	"fmt"
	"strings"
)

// MaxSchemaVersion is the newest schema opm ever wrote (migration 013, operator-registry v1.72).
const MaxSchemaVersion = 13

// NotSQLiteError is returned when the input is not a SQLite database at all.
type NotSQLiteError struct {
	Path      string
	LooksLike string // a short description of what the bytes look like
	Hint      string
}

func (e *NotSQLiteError) Error() string {
	msg := fmt.Sprintf("%s is not a SQLite index database: it looks like %s", e.Path, e.LooksLike)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// CorruptError is returned when the file starts like a SQLite database but its pages cannot be read.
type CorruptError struct {
	Path   string
	Detail string // what was wrong, e.g. "file is truncated: 12 of 40 pages present"
	While  string // what olmcat was reading when it found out
	Err    error
}

func (e *CorruptError) Error() string {
	msg := fmt.Sprintf("%s is a damaged SQLite database: %s", e.Path, e.Detail)
	if e.While != "" {
		msg += " (while " + e.While + ")"
	}
	return msg + "; restore the file from a backup or re-create the index"
}

func (e *CorruptError) Unwrap() error { return e.Err }

// UnsupportedVersionError is returned for a schema version this package does not know.
type UnsupportedVersionError struct {
	Path    string
	Version int64
}

func (e *UnsupportedVersionError) Error() string {
	if e.Version > MaxSchemaVersion {
		return fmt.Sprintf("%s: schema version %d is newer than this olmcat understands (max %d); it was not written by opm v1.72 or older: "+
			"check the file's origin, or fix schema_migrations in a copy if the tables are those of version %d",
			e.Path, e.Version, MaxSchemaVersion, MaxSchemaVersion)
	}
	return fmt.Sprintf("%s: schema version %d in table schema_migrations is not a version opm ever wrote (0 to %d)",
		e.Path, e.Version, MaxSchemaVersion)
}

// MissingSchemaError is returned when a table or column that the schema version requires is absent.
type MissingSchemaError struct {
	Path    string
	Version int
	Table   string
	Column  string // empty when the whole table is missing
}

func (e *MissingSchemaError) Error() string {
	what := "table " + e.Table
	if e.Column != "" {
		what = "column " + e.Table + "." + e.Column
	}
	return fmt.Sprintf("%s: %s is missing, but an index at schema version %d has it; the file is not an opm index or was edited by hand",
		e.Path, what, e.Version)
}

// classify turns a driver error into a typed error when it says the file is damaged.
func classify(path, while string, err error) error {
	if err == nil {
		return nil
	}
	var corrupt *CorruptError
	if errors.As(err, &corrupt) {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "SQLITE_CORRUPT"):
		return &CorruptError{Path: path, Detail: "a database page is corrupt (" + shortDriverMessage(msg) + ")", While: while, Err: err}
	case strings.Contains(msg, "unsupported file format"):
		// The header's format bytes (read and write versions, offsets 18-19, or the schema
		// format number at 44-47) hold values no SQLite ever wrote.
		return &CorruptError{Path: path, Detail: "its header holds a file format no SQLite version wrote (" + shortDriverMessage(msg) + ")", While: while, Err: err}
	case strings.Contains(msg, "file is not a database"), strings.Contains(msg, "SQLITE_NOTADB"):
		return &CorruptError{Path: path, Detail: "the header or a page does not look like SQLite (" + shortDriverMessage(msg) + ")", While: while, Err: err}
	case strings.Contains(msg, "disk I/O error"), strings.Contains(msg, "SQLITE_IOERR"):
		return &CorruptError{Path: path, Detail: "reading the file failed (" + shortDriverMessage(msg) + ")", While: while, Err: err}
	}
	return fmt.Errorf("%s: %s: %w", path, while, err)
}

// shortDriverMessage drops the numeric result-code decoration the driver adds.
func shortDriverMessage(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}
