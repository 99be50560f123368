package atomicout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/internal/scratch"
)

// Change is one file of an in-place edit (Files): its new content, or its removal.
type Change struct {
	Path   string
	Data   []byte
	Remove bool
}

// Files applies changes to files below root, all or none as far as renames allow: every new
// content is written to a temporary file beside its file first (an existing file's permission
// bits kept, a new one 0644), nothing is touched until all are written; then each file is put in
// place by a rename, the previous one kept aside until every rename succeeded and put back on a
// failure. A removed file's directory, and its parents below root, are removed when left empty.
// A path that is a symbolic link is resolved: what it points to is replaced and the link kept; a
// link to remove is removed itself.
func Files(root string, changes []Change) (err error) {
	type step struct {
		final, tmp, aside string
		remove, existed   bool
		mode              fs.FileMode
		releaseTmp        func()
	}
	steps := make([]*step, 0, len(changes))
	var madeDirs []string
	cleanup := func() {
		for _, s := range steps {
			if s.tmp != "" {
				os.Remove(s.tmp)
			}
			if s.releaseTmp != nil {
				s.releaseTmp()
			}
		}
		for i := len(madeDirs) - 1; i >= 0; i-- {
			os.Remove(madeDirs[i])
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	for _, c := range changes {
		s := &step{final: c.Path, remove: c.Remove, mode: 0o644}
		if c.Remove {
			// A link is removed itself: what it points to is another path's business.
			if fi, lerr := os.Lstat(c.Path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				s.existed = true // renamed aside as a file is: rename moves the link
				steps = append(steps, s)
				continue
			}
		} else if resolved, rerr := filepath.EvalSymlinks(c.Path); rerr == nil {
			s.final = resolved
		}
		steps = append(steps, s)
		fi, serr := os.Stat(s.final)
		switch {
		case serr == nil && !fi.Mode().IsRegular():
			return fmt.Errorf("%s is not a regular file; nothing was changed", c.Path)
		case serr == nil:
			s.existed, s.mode = true, fi.Mode().Perm()
		case !errors.Is(serr, fs.ErrNotExist):
			return writeError(c.Path, serr)
		case c.Remove:
			s.final = "" // gone already
			continue
		}
		if c.Remove {
			continue
		}
		dir := filepath.Dir(s.final)
		if _, derr := os.Stat(dir); errors.Is(derr, fs.ErrNotExist) {
			made, merr := mkdirAllRecorded(dir)
			madeDirs = append(madeDirs, made...)
			if merr != nil {
				return writeError(c.Path, merr)
			}
		}
		scratch.RemoveStale(dir, tempPrefix(s.final)) // left by an earlier run that was killed
		f, unlock, cerr := scratch.CreateTempLocked(dir, tempPrefix(s.final))
		if cerr != nil {
			return writeError(c.Path, cerr)
		}
		s.tmp = f.Name()
		release := scratch.Track(s.tmp)
		s.releaseTmp = func() { release(); unlock() }
		_, werr := f.Write(c.Data)
		if werr == nil {
			werr = f.Sync()
		}
		werr = errors.Join(werr, f.Close())
		if werr == nil {
			werr = os.Chmod(s.tmp, s.mode)
		}
		if werr != nil {
			return writeError(c.Path, werr)
		}
	}
	// Every new content is written: put them in place, the previous files aside.
	var done []*step
	undo := func(cause error) error {
		for i := len(done) - 1; i >= 0; i-- {
			s := done[i]
			var uerr error
			switch {
			case s.aside != "":
				uerr = rename(s.aside, s.final)
			case !s.remove:
				uerr = os.Remove(s.final)
			}
			if uerr != nil {
				cause = fmt.Errorf("%w; and %s could not be put back (the previous file is %s): %v", cause, s.final, s.aside, uerr)
			}
		}
		return cause
	}
	for _, s := range steps {
		if s.final == "" {
			continue
		}
		if s.existed {
			aside, aerr := asideName(s.final)
			if aerr == nil {
				if aerr = rename(s.final, aside); aerr != nil {
					os.Remove(aside)
				}
			}
			if aerr != nil {
				return undo(writeError(s.final, aerr))
			}
			s.aside = aside
		}
		if !s.remove {
			if rerr := rename(s.tmp, s.final); rerr != nil {
				done = append(done, s)
				return undo(writeError(s.final, rerr))
			}
			s.tmp = ""
			if s.releaseTmp != nil {
				s.releaseTmp()
				s.releaseTmp = nil
			}
		}
		done = append(done, s)
	}
	for _, s := range steps {
		if s.aside != "" {
			discard(s.aside)
		}
	}
	absRoot, _ := filepath.Abs(root)
	if resolved, rerr := filepath.EvalSymlinks(absRoot); rerr == nil {
		absRoot = resolved
	}
	for _, s := range steps {
		if s.remove && s.final != "" {
			removeEmptyDirs(filepath.Dir(s.final), absRoot)
		}
	}
	return nil
}

// asideName is a free name beside path for its previous content while the new one is put in place.
func asideName(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".old-")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	return name, nil // the rename replaces the empty file
}

// mkdirAllRecorded creates dir and its missing parents, returning those it created, outermost first.
func mkdirAllRecorded(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// removeEmptyDirs removes dir and its parents while they are empty and strictly inside root.
func removeEmptyDirs(dir, root string) {
	for {
		abs, err := filepath.Abs(dir)
		if err != nil || abs == root || !strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return
		}
		if os.Remove(abs) != nil { // fails unless empty
			return
		}
		dir = filepath.Dir(abs)
	}
}
