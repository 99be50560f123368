// Package nofollow opens files and directories under a directory that someone else may write (a
// cache shared between CI jobs, an OCI layout from a pull request) without ever following a
// symbolic link, and without blocking: a link, FIFO, device or socket put where a file or a
// directory belongs is refused, never opened through, and a FIFO swapped in between the check and
// the open cannot hang the process (it is opened O_NONBLOCK, then found not to be a regular file).
//
// Everything is reached through an os.Root, so even a link swapped in between a check and an
// open cannot lead out of the directory; the check then sees the swap (the file opened is not the
// one checked) and refuses it.
package nofollow

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// ErrChanged is a path that was swapped for another file between its check and its open.
var ErrChanged = errors.New("changed while it was opened")

// NotRegularError is a path that is a link, a FIFO, a device, a socket, or not the kind of file
// (a directory, a regular file) that belongs there.
type NotRegularError struct {
	Path string // as the caller named it, relative to the root
	Mode fs.FileMode
	Dir  bool // a directory was wanted
}

func (e *NotRegularError) Error() string {
	want := "a regular file"
	if e.Dir {
		want = "a directory"
	}
	return fmt.Sprintf("%s is %s, not %s (never followed nor read)", e.Path, Describe(e.Mode), want)
}

// Describe says what kind of file mode m is, for messages.
func Describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// OpenDir opens the directory rel (slash-separated) under root, refusing a symbolic link or
// anything but a directory at every step of it. The caller closes the result.
func OpenDir(root *os.Root, rel string) (*os.Root, error) {
	dir := root
	parts := strings.Split(path.Clean(rel), "/")
	for i, p := range parts {
		if p == "." {
			continue
		}
		next, err := openSubdir(dir, p, strings.Join(parts[:i+1], "/"))
		if dir != root {
			dir.Close()
		}
		if err != nil {
			return nil, err
		}
		dir = next
	}
	if dir == root {
		return root.OpenRoot(".")
	}
	return dir, nil
}

// openSubdir opens the directory name of dir, never through a link: the directory opened is the
// one Lstat saw (a link swapped in between is refused, and could only have led inside dir anyway).
func openSubdir(dir *os.Root, name, shown string) (*os.Root, error) {
	fi, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &NotRegularError{Path: shown, Mode: fi.Mode(), Dir: true}
	}
	sub, err := dir.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if now, err := sub.Stat("."); err != nil || !os.SameFile(fi, now) {
		sub.Close()
		return nil, fmt.Errorf("%s %w", shown, ErrChanged)
	}
	return sub, nil
}

// Open opens the regular file rel (slash-separated) under root for reading, never through a link
// and without blocking. The FileInfo is the open file's (its size is the size to expect).
func Open(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	dir, base := root, rel
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		sub, err := OpenDir(root, rel[:i])
		if err != nil {
			return nil, nil, err
		}
		defer sub.Close()
		dir, base = sub, rel[i+1:]
	}
	fi, err := dir.Lstat(base)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: rel, Mode: fi.Mode()}
	}
	f, err := dir.OpenFile(base, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	now, err := f.Stat()
	if err != nil || !now.Mode().IsRegular() || !os.SameFile(fi, now) {
		f.Close()
		return nil, nil, fmt.Errorf("%s %w", rel, ErrChanged)
	}
	return f, now, nil
}

// TooLargeError is a file larger than the bound it is read with.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s has %d bytes, more than the %d it may hold", e.Path, e.Size, e.Max)
}

// ReadFile reads the regular file rel under root whole (as Open reaches it), refusing one of
// more than max bytes before reading a byte of it (a *TooLargeError).
func ReadFile(root *os.Root, rel string, max int64) ([]byte, error) {
	f, fi, err := Open(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, &TooLargeError{Path: rel, Size: fi.Size(), Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // it grew since
		return nil, &TooLargeError{Path: rel, Size: int64(len(data)), Max: max}
	}
	return data, nil
}
