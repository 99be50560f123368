// Package atomicout writes output directories and files so that on any error nothing partial is
// left: everything goes to a temporary sibling first and is renamed into place on Commit.
package atomicout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Test hooks: renames and removals that tests make fail.
var (
	rename    = os.Rename
	removeAll = os.RemoveAll
)

// Target is an output being prepared. Write under Path(), then Commit or Abort.
type Target struct {
	name    string // as the caller gave it, for messages
	final   string // where the output goes: name with symbolic links followed
	tmp     string
	isDir   bool
	inPlace bool // tmp is inside final, which a rename cannot replace
	force   bool
	done    bool
}

// Dir prepares an output directory. An existing non-empty directory (or any file) at outDir is an
// error unless force is set, in which case it is replaced on Commit. When outDir is a symbolic
// link, what it points to is replaced and the link is kept. An existing directory that cannot be
// replaced by a rename (a mount point) is kept and its content replaced.
func Dir(outDir string, force bool) (*Target, error) {
	final, err := prepare(outDir, force, true)
	if err != nil {
		return nil, err
	}
	t := &Target{name: outDir, final: final, isDir: true, force: force}
	if fi, err := os.Stat(final); err == nil && fi.IsDir() {
		if t.inPlace, err = cannotRename(final); err != nil {
			return nil, fmt.Errorf("check output directory %s: %w", outDir, err)
		}
	}
	parent, prefix := filepath.Dir(final), "."+filepath.Base(final)+".tmp-"
	if t.inPlace {
		parent, prefix = final, inPlacePrefix
	}
	if t.tmp, err = os.MkdirTemp(parent, prefix); err != nil {
		return nil, fmt.Errorf("create temporary output for %s: %w", outDir, err)
	}
	if err := os.Chmod(t.tmp, 0o755); err != nil {
		return nil, errors.Join(fmt.Errorf("create temporary output for %s: %w", outDir, err), os.RemoveAll(t.tmp))
	}
	return t, nil
}

// File prepares an output file. An existing file at path is an error unless force is set. When
// path is a symbolic link, what it points to is replaced and the link is kept.
func File(path string, force bool) (*Target, error) {
	final, err := prepare(path, force, false)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create temporary output beside %s: %w", path, err)
	}
	tmp := f.Name()
	// The writer creates the file; only the unique name is wanted.
	if err := errors.Join(f.Close(), os.Remove(tmp)); err != nil {
		return nil, fmt.Errorf("create temporary output beside %s: %w", path, err)
	}
	return &Target{name: path, final: final, tmp: tmp, force: force}, nil
}

// prepare returns where the output for path goes, after checking that it may be written there and
// creating its directory.
func prepare(path string, force, dir bool) (string, error) {
	final, isLink, err := resolve(path)
	if err != nil {
		return "", err
	}
	if err := checkFree(final, path, force, dir); err != nil {
		return "", err
	}
	if !isLink { // a link's target is not invented: resolve checked that its directory exists
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
			return "", fmt.Errorf("create directory of output %s: %w", path, err)
		}
	}
	return final, nil
}

// checkFree checks final, the output for name.
func checkFree(final, name string, force, wantDir bool) error {
	fi, err := os.Stat(final)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check output %s: %w", name, err)
	}
	if force {
		return nil
	}
	if wantDir && fi.IsDir() {
		entries, err := os.ReadDir(final)
		if err != nil {
			return fmt.Errorf("check output directory %s: %w", name, err)
		}
		if len(entries) == 0 {
			return nil
		}
		return fmt.Errorf("output directory %s is not empty: choose another path or pass --force to replace it", name)
	}
	return fmt.Errorf("output %s already exists: choose another path or pass --force to replace it", name)
}

// Path is where to write: a directory for Dir, a file name for File.
func (t *Target) Path() string { return t.tmp }

// Commit moves the output into place. An error means the output is not in place (and what was
// there before still is, unless the error says where it went).
func (t *Target) Commit() error {
	if t.done {
		return errors.New("output already committed or aborted")
	}
	t.done = true
	if t.inPlace {
		return t.commitInPlace()
	}
	if _, err := os.Stat(t.final); err == nil {
		if !t.force && (!t.isDir || !emptyDir(t.final)) {
			return t.fail(fmt.Errorf("output %s appeared while writing; not replaced (use --force)", t.name))
		}
		old := t.tmp + ".old"
		if err := rename(t.final, old); err != nil {
			if renameBlocked(err) {
				return t.commitBlocked(err)
			}
			return t.fail(fmt.Errorf("move existing %s aside: %w", t.name, err))
		}
		if err := rename(t.tmp, t.final); err != nil {
			err = fmt.Errorf("move output into place at %s: %w", t.name, err)
			if rerr := rename(old, t.final); rerr != nil {
				err = fmt.Errorf("%w; the previous output could not be put back and is at %s: %v", err, old, rerr)
			}
			return t.fail(err)
		}
		removeAll(old) // the output is in place: a leftover old copy does not make this fail
		return nil
	}
	if err := rename(t.tmp, t.final); err != nil {
		return t.fail(fmt.Errorf("move output into place at %s: %w", t.name, err))
	}
	return nil
}

func emptyDir(dir string) bool {
	list, err := os.ReadDir(dir)
	return err == nil && len(list) == 0
}

// fail removes the temporary output after a failed Commit and returns err.
func (t *Target) fail(err error) error {
	if rerr := removeAll(t.tmp); rerr != nil {
		return fmt.Errorf("%w (the temporary output %s could not be removed: %v)", err, t.tmp, rerr)
	}
	return err
}

// Abort removes everything written. It is safe to call after Commit (then it does nothing), so
// `defer t.Abort()` is the usual pattern.
func (t *Target) Abort() {
	if t.done {
		return
	}
	t.done = true
	removeAll(t.tmp) // best effort: Abort follows another error, which is the one to report
}
