// Package atomicout writes output directories and files so that on any error nothing partial is
// left: everything goes to a temporary sibling first and is renamed into place on Commit.
package atomicout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Target is an output being prepared. Write under Path(), then Commit or Abort.
type Target struct {
	final string
	tmp   string
	isDir bool
	force bool
	done  bool
}

// Dir prepares an output directory. An existing non-empty directory (or any file) at outDir is an
// error unless force is set, in which case it is replaced on Commit.
func Dir(outDir string, force bool) (*Target, error) {
	if err := checkFree(outDir, force, true); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(outDir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create parent of output directory %s: %w", outDir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(outDir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create temporary output beside %s: %w", outDir, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Target{final: outDir, tmp: tmp, isDir: true, force: force}, nil
}

// File prepares an output file. An existing file at path is an error unless force is set.
func File(path string, force bool) (*Target, error) {
	if err := checkFree(path, force, false); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(path))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create parent of output file %s: %w", path, err)
	}
	f, err := os.CreateTemp(parent, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create temporary output beside %s: %w", path, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name) // the writer creates it; only the unique name is wanted
	return &Target{final: path, tmp: name, force: force}, nil
}

func checkFree(path string, force, wantDir bool) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check output %s: %w", path, err)
	}
	if force {
		return nil
	}
	if wantDir && fi.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return fmt.Errorf("check output directory %s: %w", path, err)
		}
		if len(entries) == 0 {
			return nil
		}
		return fmt.Errorf("output directory %s is not empty: choose another path or pass --force to replace it", path)
	}
	return fmt.Errorf("output %s already exists: choose another path or pass --force to replace it", path)
}

// Path is where to write: a directory for Dir, a file name for File.
func (t *Target) Path() string { return t.tmp }

// Commit moves the output into place.
func (t *Target) Commit() error {
	if t.done {
		return errors.New("output already committed or aborted")
	}
	t.done = true
	if _, err := os.Stat(t.final); err == nil {
		if !t.force && !t.isDir {
			os.RemoveAll(t.tmp)
			return fmt.Errorf("output %s appeared while writing; not replaced (use --force)", t.final)
		}
		old := t.tmp + ".old"
		if err := os.Rename(t.final, old); err != nil {
			os.RemoveAll(t.tmp)
			return fmt.Errorf("move existing %s aside: %w", t.final, err)
		}
		if err := os.Rename(t.tmp, t.final); err != nil {
			os.Rename(old, t.final)
			os.RemoveAll(t.tmp)
			return fmt.Errorf("move output into place at %s: %w", t.final, err)
		}
		return os.RemoveAll(old)
	}
	if err := os.Rename(t.tmp, t.final); err != nil {
		os.RemoveAll(t.tmp)
		return fmt.Errorf("move output into place at %s: %w", t.final, err)
	}
	return nil
}

// Abort removes everything written. It is safe to call after Commit (then it does nothing), so
// `defer t.Abort()` is the usual pattern.
func (t *Target) Abort() {
	if t.done {
		return
	}
	t.done = true
	os.RemoveAll(t.tmp)
}
