package atomicout

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/olmcat/olmcat/internal/scratch"
)

// A directory that a rename cannot replace (a mount point, such as a container volume) gets its new
// content built in a temporary directory inside it, on its own filesystem. Commit then renames
// the old entries into another temporary directory inside it and the new ones up into it: the
// output is whole but for the moment between the two batches of renames.
const (
	inPlacePrefix    = ".olmcat-tmp-"
	inPlaceOldPrefix = ".olmcat-old-"
)

// cannotRename reports whether the existing directory dir cannot be replaced by a rename. Tests
// replace it, as they cannot mount.
var cannotRename = mountPoint

func (t *Target) commitInPlace() error {
	olds, err := entryNames(t.final, filepath.Base(t.tmp))
	if err != nil {
		return t.fail(fmt.Errorf("read output directory %s: %w", t.name, err))
	}
	if len(olds) > 0 && !t.force {
		return t.fail(fmt.Errorf("output directory %s was written to meanwhile; not replaced (use --force)", t.name))
	}
	news, err := entryNames(t.tmp, "")
	if err != nil {
		return t.fail(fmt.Errorf("read temporary output %s: %w", t.tmp, err))
	}
	var aside string
	if len(olds) > 0 {
		if aside, err = os.MkdirTemp(t.final, inPlaceOldPrefix); err != nil {
			return t.fail(fmt.Errorf("move old content of %s aside: %w", t.name, err))
		}
	}
	t.untrack() // the old entries and the new are moved: neither is scratch until that is over
	if aside != "" {
		if err := moveAll(olds, t.final, aside); err != nil {
			os.Remove(aside) // empty unless moving back failed, which err reports
			t.track()
			return t.fail(fmt.Errorf("move old content of %s aside (in %s): %w", t.name, aside, err))
		}
	}
	if err := moveAll(news, t.tmp, t.final); err != nil {
		err = fmt.Errorf("move output into %s: %w", t.name, err)
		t.track()
		if aside != "" {
			if berr := moveAll(olds, aside, t.final); berr != nil {
				return t.fail(fmt.Errorf("%w; the previous content could not be put back and is in %s: %v", err, aside, berr))
			}
			err = errors.Join(err, os.Remove(aside))
		}
		return t.fail(err)
	}
	discard(t.tmp) // empty now
	if aside != "" {
		discard(aside)
	}
	return nil
}

// commitBlocked finishes a Commit whose rename of the existing output failed with cause, a
// mount point's error: the new content is copied into it, as a rename cannot cross the mount.
func (t *Target) commitBlocked(cause error) error {
	if !t.isDir {
		// A mounted file can only be overwritten: not atomic, but the only way into it.
		if err := copyFile(t.tmp, t.final, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
			return t.fail(fmt.Errorf("write output into %s, a mount point: %w", t.name, err))
		}
		t.untrack()
		discard(t.tmp)
		return nil
	}
	inner, err := os.MkdirTemp(t.final, inPlacePrefix)
	if err != nil {
		return t.fail(fmt.Errorf("move existing %s aside: %w; and write into it: %w", t.name, cause, err))
	}
	releaseInner := scratch.Track(inner)
	if err = copyTree(t.tmp, inner); err == nil {
		err = removeAll(t.tmp)
	}
	if err != nil {
		err = t.fail(errors.Join(fmt.Errorf("copy output into %s, a mount point: %w", t.name, err), removeAll(inner)))
		releaseInner()
		return err
	}
	t.untrack()
	t.tmp, t.inPlace, t.release = inner, true, releaseInner
	return t.commitInPlace()
}

// entryNames lists dir, without skip.
func entryNames(dir, skip string) ([]string, error) {
	list, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list))
	for _, e := range list {
		if e.Name() != skip {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// moveAll renames the entries names of from into to. On failure it moves back those it moved.
func moveAll(names []string, from, to string) error {
	for i, n := range names {
		if err := rename(filepath.Join(from, n), filepath.Join(to, n)); err != nil {
			for _, m := range names[:i] {
				if berr := rename(filepath.Join(to, m), filepath.Join(from, m)); berr != nil {
					err = fmt.Errorf("%w; and %s could not be moved back: %v", err, m, berr)
				}
			}
			return err
		}
	}
	return nil
}

// copyTree copies the tree of directories, regular files and symbolic links src into the existing
// directory dst, with permission bits.
func copyTree(src, dst string) error {
	type dirMode struct {
		path string
		perm fs.FileMode
	}
	var dirs []dirMode // set last, so a read-only directory is filled first
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == src {
			return err
		}
		to := filepath.Join(dst, path[len(src):])
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			dirs = append(dirs, dirMode{to, mode.Perm()})
			return os.Mkdir(to, 0o700)
		case mode.IsRegular():
			return copyFile(path, to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
		case mode&fs.ModeSymlink != 0:
			dest, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(dest, to)
		default:
			return fmt.Errorf("%s: cannot copy a %v", path, mode.Type())
		}
	})
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		err = os.Chmod(dirs[i].path, dirs[i].perm) // not the umask's
	}
	return err
}

func copyFile(src, dst string, flag int, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, flag, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	err = errors.Join(err, out.Close())
	if err == nil && flag&os.O_CREATE != 0 {
		err = os.Chmod(dst, perm) // not the umask's
	}
	return err
}
