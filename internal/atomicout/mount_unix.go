//go:build unix

package atomicout

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// mountPoint reports whether the existing directory dir is a mount point that a rename cannot
// replace: it is the root, or on another device than its parent. A bind mount from the same
// device is not seen here; Commit falls back when its rename fails (renameBlocked).
func mountPoint(dir string) (bool, error) {
	parent := filepath.Dir(dir)
	if parent == dir {
		return true, nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	pfi, err := os.Stat(parent)
	if err != nil {
		return false, err
	}
	return otherDevice(fi, pfi), nil
}

func otherDevice(a, b fs.FileInfo) bool {
	sa, ok := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok && ok2 && sa.Dev != sb.Dev
}

// renameBlocked reports whether a rename failed because a mount point is involved.
func renameBlocked(err error) bool {
	return errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV)
}
