// Package atomicout writes output directories and files so that on any error nothing partial is
// left: everything goes to a temporary sibling first and is renamed into place on Commit. A
// directory that cannot be renamed (a mount point) is filled in place instead: see inplace.go.
//
// Temporary paths are tracked by package scratch while they are only scratch, so a signal handler
// calling scratch.RemoveAll leaves neither a partial output nor a previous copy behind. While
// Commit swaps the old output for the new, neither is tracked: a signal then must not delete the
// only copy of either.
package atomicout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/olmcat/olmcat/internal/scratch"
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
	release func() // of tmp's tracking by scratch; nil when not tracked
	// holder is the directory a File's temporary file is written in (tmp is holder/<name>); ""
	// for Dir, whose tmp is itself a directory.
	holder string
	// unlock drops the lock this process holds on its temporary directory (holder or tmp), which
	// tells the next run that the temporary directory is in use (see scratch.RemoveStale).
	unlock func()
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
			return nil, writeError(outDir, err)
		}
	}
	parent, prefix := filepath.Dir(final), tempPrefix(final)
	if t.inPlace {
		parent, prefix = final, inPlacePrefix
	}
	scratch.RemoveStale(parent, prefix) // left by an earlier run that was killed
	if t.tmp, t.unlock, err = scratch.MkdirTempLocked(parent, prefix); err != nil {
		return nil, writeError(outDir, err)
	}
	t.track()
	if err := os.Chmod(t.tmp, 0o755); err != nil {
		err = t.fail(writeError(outDir, err))
		t.end()
		return nil, err
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
	parent, prefix := filepath.Dir(final), tempPrefix(final)
	scratch.RemoveStale(parent, prefix) // left by an earlier run that was killed
	// The writer creates the file, in a directory of its own that this process holds locked.
	holder, unlock, err := scratch.MkdirTempLocked(parent, prefix)
	if err != nil {
		return nil, writeError(path, err)
	}
	t := &Target{name: path, final: final, tmp: filepath.Join(holder, filepath.Base(final)), force: force,
		holder: holder, unlock: unlock}
	t.track()
	return t, nil
}

// tempPrefix is how the temporary paths of the output final begin, beside it.
func tempPrefix(final string) string { return "." + filepath.Base(final) + ".tmp-" }

// scratchRoot is what holds everything this target wrote: holder for a File, tmp for a Dir.
func (t *Target) scratchRoot() string {
	if t.holder != "" {
		return t.holder
	}
	return t.tmp
}

// end drops the lock on the temporary directory and removes a File's holder, empty by now.
func (t *Target) end() {
	if t.holder != "" {
		os.Remove(t.holder)
	}
	if t.unlock != nil {
		t.unlock()
		t.unlock = nil
	}
}

// Check refuses early, before any long work and creating nothing, an output that Dir (dir set) or
// File would refuse: an existing non-empty directory or an existing file without force, or a
// dangling symbolic link whose target's directory does not exist.
func Check(path string, force, dir bool) error {
	final, _, err := resolve(path)
	if err != nil {
		return err
	}
	return checkFree(final, path, force, dir)
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
			return "", writeError(path, err)
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
		return writeError(name, err)
	}
	if force {
		return nil
	}
	if wantDir && fi.IsDir() {
		entries, err := os.ReadDir(final)
		if err != nil {
			return writeError(name, err)
		}
		if len(entries) == 0 {
			return nil
		}
		return &ExistsError{Path: name, Dir: true}
	}
	return &ExistsError{Path: name}
}

// ExistsError is an output that is already there and may only be replaced with force.
type ExistsError struct {
	Path string
	Dir  bool // a non-empty directory
}

func (e *ExistsError) Error() string {
	if e.Dir {
		return fmt.Sprintf("output directory %s is not empty: choose another path or pass --force to replace it", e.Path)
	}
	return fmt.Sprintf("output %s already exists: choose another path or pass --force to replace it", e.Path)
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
	defer t.end()
	if t.inPlace {
		return t.commitInPlace()
	}
	if _, err := os.Stat(t.final); err == nil {
		if !t.force && (!t.isDir || !emptyDir(t.final)) {
			return t.fail(fmt.Errorf("output %s appeared while writing; not replaced (use --force)", t.name))
		}
		// Beside the temporary directory, not in it: if the process is killed before the swap
		// ends, this may be the only copy of the previous output, and RemoveStale spares .old.
		old := t.scratchRoot() + ".old"
		t.untrack()
		if err := rename(t.final, old); err != nil {
			t.track()
			if renameBlocked(err) {
				return t.commitBlocked(err)
			}
			return t.fail(writeError(t.name, err))
		}
		if err := rename(t.tmp, t.final); err != nil {
			err = fmt.Errorf("move output into place at %s: %w", t.name, err)
			if rerr := rename(old, t.final); rerr != nil {
				err = fmt.Errorf("%w; the previous output could not be put back and is at %s: %v", err, old, rerr)
			}
			t.track()
			return t.fail(err)
		}
		discard(old)
		return nil
	}
	if err := rename(t.tmp, t.final); err != nil {
		return t.fail(writeError(t.name, err))
	}
	t.untrack()
	return nil
}

// discard removes what a successful Commit left over. The output is in place, so failing to remove
// it does not make the Commit fail.
func discard(path string) {
	release := scratch.Track(path)
	removeAll(path)
	release()
}

func (t *Target) track() {
	t.untrack()
	t.release = scratch.Track(t.scratchRoot())
}

func (t *Target) untrack() {
	if t.release != nil {
		t.release()
		t.release = nil
	}
}

func emptyDir(dir string) bool {
	list, err := os.ReadDir(dir)
	return err == nil && len(list) == 0
}

// fail removes the temporary output after a failure and returns err.
func (t *Target) fail(err error) error {
	if rerr := removeAll(t.scratchRoot()); rerr != nil {
		return fmt.Errorf("%w (the temporary output %s could not be removed: %v)", err, t.tmp, rerr)
	}
	t.untrack()
	return err
}

// Abort removes everything written. It is safe to call after Commit (then it does nothing), so
// `defer t.Abort()` is the usual pattern.
func (t *Target) Abort() {
	if t.done {
		return
	}
	t.done = true
	defer t.end()
	// Best effort: Abort follows another error, which is the one to report. What could not be
	// removed stays tracked, for scratch.RemoveAll to try again.
	if removeAll(t.scratchRoot()) == nil {
		t.untrack()
	}
}
