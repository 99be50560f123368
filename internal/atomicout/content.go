package atomicout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/olmcat/olmcat/internal/scratch"
)

// CommitNew moves a content-addressed output into place unless one is there already: outputs of
// the same name hold the same content (a cache entry named by its digest), so one another process
// committed meanwhile is kept and this one discarded (placed false, no error), and nothing a
// reader may be reading is moved or removed. replace, if set, is asked about what is found there
// (its Lstat, never followed): true moves it aside and removes it first (an entry found damaged,
// a link where an entry belongs).
//
// Processes committing into the same directory do it one at a time (an flock on the directory,
// where the file system has one), so that two never swap the same output: Commit with force moves
// the previous output to a ".old" copy and back, which two runs committing the same name at once
// turned into leftovers and errors. Anything moved aside goes into a temporary directory of this
// process, locked, so that a run killed meanwhile leaves only what scratch.RemoveStale removes.
func (t *Target) CommitNew(replace func(fs.FileInfo) bool) (placed bool, err error) {
	if t.done {
		return false, errors.New("output already committed or aborted")
	}
	if t.inPlace || !t.isDir {
		return true, t.Commit() // a mount point, a file: never content-addressed here
	}
	t.done = true
	defer t.end()
	parent := filepath.Dir(t.final)
	unlock := lockDir(parent)
	defer unlock()
	fi, err := os.Lstat(t.final)
	switch {
	case err == nil && (replace == nil || !replace(fi)):
		return false, t.discardOurs()
	case err == nil:
		if err := t.moveAside(parent); err != nil {
			return false, t.fail(writeError(t.name, err))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, t.fail(writeError(t.name, err))
	}
	if err := rename(t.tmp, t.final); err != nil {
		if errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTEMPTY) {
			// Committed meanwhile by a process that does not lock (another file system's rules).
			return false, t.discardOurs()
		}
		return false, t.fail(writeError(t.name, err))
	}
	t.untrack()
	return true, nil
}

// discardOurs removes the output written, not needed: another process placed the same.
func (t *Target) discardOurs() error {
	if err := removeAll(t.scratchRoot()); err != nil {
		return nil // tracked still, for scratch.RemoveAll; the output is in place all the same
	}
	t.untrack()
	return nil
}

// moveAside moves what is at final into a new locked temporary directory beside it, and removes it.
func (t *Target) moveAside(parent string) error {
	aside, unlock, err := scratch.MkdirTempLocked(parent, tempPrefix(t.final))
	if err != nil {
		return err
	}
	defer unlock()
	release := scratch.Track(aside)
	defer release()
	if err := rename(t.final, filepath.Join(aside, "replaced")); err != nil {
		removeAll(aside)
		return fmt.Errorf("move the previous output aside: %w", err)
	}
	removeAll(aside) // best effort: what is left is removed by the next run's RemoveStale
	return nil
}

// lockWait bounds the wait for another process's commit into the same directory; a process that
// holds the lock longer (stopped, on a slow disk) is not waited for: the commit is then safe all
// the same, one rename that does not replace an output another process placed.
const lockWait = 10 * time.Second
