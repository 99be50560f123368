package atomicout

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/olmcat/olmcat/internal/scratch"
)

// WriteError is an output that could not be written: a full disk, a read-only directory, a path
// under a regular file. It says so once, naming the output as the caller named it and the cause,
// never the temporary files the output is built in.
type WriteError struct {
	Output string // as the caller named it
	File   string // the file of the output being written, relative to it; "" for the output itself
	Err    error  // the cause: a syscall.Errno where there is one
}

func (e *WriteError) Error() string {
	s := "cannot write the output " + e.Output
	if e.File != "" && e.File != "." {
		s += " (" + filepath.ToSlash(e.File) + ")"
	}
	return s + ": " + describe(e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// describe says what a cause means for an output.
func describe(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOTDIR:
			return "a part of its path is a file, not a directory"
		case syscall.EROFS:
			return "the file system is read-only"
		case syscall.EACCES, syscall.EPERM:
			return "permission denied (choose a directory this user can write)"
		case syscall.ENOSPC, syscall.EDQUOT:
			return errno.Error() + " (free some space or write elsewhere)"
		}
	}
	return err.Error()
}

// cause strips the wrappers of the os package, which repeat a path (often a temporary one).
func cause(err error) error {
	var (
		pe *fs.PathError
		le *os.LinkError
		se *os.SyscallError
	)
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	case errors.As(err, &se):
		return se.Err
	}
	return err
}

// writeError is err met while creating or committing the output name, as a *WriteError.
func writeError(name string, err error) error {
	var (
		we *WriteError
		ce *scratch.CreateError
	)
	switch {
	case errors.As(err, &we):
		return err
	case errors.As(err, &ce): // the temporary output beside it
		return &WriteError{Output: name, Err: ce.Err}
	}
	return &WriteError{Output: name, Err: cause(err)}
}

// Err turns an error met while writing under Path() into a *WriteError naming the output and the
// file in it, without the temporary path. Errors that are not about writing a file (a bad catalog,
// a cancelled context) are returned as they are; nil is nil.
func (t *Target) Err(err error) error {
	if err == nil {
		return nil
	}
	var we *WriteError
	if errors.As(err, &we) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if rel, rerr := filepath.Rel(t.tmp, pe.Path); rerr == nil && (rel == "." || filepath.IsLocal(rel)) {
			if !t.isDir {
				rel = ""
			}
			return &WriteError{Output: t.name, File: rel, Err: pe.Err}
		}
		return err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) && outputErrno(errno) {
		return &WriteError{Output: t.name, Err: errno}
	}
	return err
}

// outputErrno reports whether errno, met while writing, is about where the output goes.
func outputErrno(errno syscall.Errno) bool {
	switch errno {
	case syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO, syscall.EFBIG:
		return true
	}
	return false
}
