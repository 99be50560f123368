package atomicout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// resolve returns where output for path goes: path itself, or, when path is a symbolic link, what
// the link (and any chain of links) points to, so that the output replaces the target and the
// link is kept. A dangling link names an output to create, provided its directory exists.
func resolve(path string) (final string, isLink bool, err error) {
	path = filepath.Clean(path)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, false, nil // an error here shows up again, named, when the output is checked
	}
	real, err := filepath.EvalSymlinks(path)
	if err == nil {
		return real, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", true, fmt.Errorf("output %s is a symbolic link that cannot be followed: %w", path, err)
	}
	link := path
	for range 255 {
		dest, err := os.Readlink(link)
		if err != nil {
			return "", true, fmt.Errorf("output %s: follow symbolic link %s: %w", path, link, err)
		}
		if !filepath.IsAbs(dest) {
			// The link exists, so its directory does; resolving that directory first keeps ".."
			// in dest meaning what the kernel makes of it.
			dir, err := filepath.EvalSymlinks(filepath.Dir(link))
			if err != nil {
				return "", true, fmt.Errorf("output %s: follow symbolic link %s: %w", path, link, err)
			}
			dest = filepath.Join(dir, dest)
		}
		fi, err := os.Lstat(dest)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			dir, derr := filepath.EvalSymlinks(filepath.Dir(dest))
			if derr != nil {
				return "", true, fmt.Errorf("output %s is a symbolic link to %s, whose directory does not exist", path, dest)
			}
			return filepath.Join(dir, filepath.Base(dest)), true, nil
		case err != nil:
			return "", true, fmt.Errorf("output %s: follow symbolic link to %s: %w", path, dest, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			// dest exists, yet EvalSymlinks said something on the way does not: it changed meanwhile.
			return "", true, fmt.Errorf("output %s is a symbolic link to %s, which changed while being followed", path, dest)
		}
		link = dest
	}
	return "", true, fmt.Errorf("output %s: too many levels of symbolic links", path)
}
