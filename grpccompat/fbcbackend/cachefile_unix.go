//go:build unix

package fbcbackend

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openNoFollow opens base, then each component of rel below it with openat and O_NOFOLLOW: the
// directories with O_DIRECTORY, the last one only if fstatat finds a regular file there, and with
// O_NONBLOCK all the same (should it be swapped for a FIFO in between, the open does not block;
// openRegular then refuses it).
// With wantDir the last is a directory too.
func openNoFollow(base string, rel []string, wantDir bool) (*os.File, error) {
	dirFD, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: base, Err: err}
	}
	path := base
	for i, name := range rel {
		path = filepath.Join(path, name)
		last := i == len(rel)-1 && !wantDir
		var fd int
		if last {
			var st unix.Stat_t
			if err = fstatat(dirFD, name, &st); err == nil && uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
				unix.Close(dirFD)
				return nil, notACacheFile(path, modeOf(uint32(st.Mode)), false)
			}
			if err == nil {
				fd, err = openat(dirFD, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY)
			}
		} else {
			fd, err = openat(dirFD, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_DIRECTORY)
		}
		if err != nil {
			err = describeOpenError(dirFD, name, path, last, err)
			unix.Close(dirFD)
			return nil, err
		}
		unix.Close(dirFD)
		dirFD = fd
	}
	return os.NewFile(uintptr(dirFD), path), nil
}

func openat(dirFD int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirFD, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func fstatat(dirFD int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirFD, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// describeOpenError says what is at dirFD/name instead of the directory or regular file expected
// there (O_NOFOLLOW and O_DIRECTORY fail with ELOOP, ENOTDIR or EMLINK), without opening it.
func describeOpenError(dirFD int, name, path string, last bool, err error) error {
	if errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	var st unix.Stat_t
	if fstatat(dirFD, name, &st) == nil {
		want := uint32(unix.S_IFDIR)
		if last {
			want = unix.S_IFREG
		}
		if uint32(st.Mode)&unix.S_IFMT != want {
			return notACacheFile(path, modeOf(uint32(st.Mode)), !last)
		}
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFDIR:
		return fs.ModeDir
	default:
		return 0
	}
}
