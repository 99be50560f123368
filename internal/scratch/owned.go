package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A temporary file or directory olmcat creates is locked (flock) by its process for as long as
// it is in use. The kernel drops the lock when the process ends however it ends (SIGKILL, the OOM
// killer), so an entry with olmcat's names that nobody holds locked was left by a process that is
// gone, and the next run removes it: RemoveStale. A live process's entries are never touched: the
// creator locks an entry and then checks that its path still names it, so a cleaner that got in
// first (and removed it) makes the creator create another one.
//
// Where flock is not available (some network file systems, other systems) nothing is locked and
// nothing is removed.

// StalePrefixes are the names of the temporary files and directories olmcat creates in the
// system's temporary directory.
var StalePrefixes = []string{"olmcat-serve-cache-", "olmcat-http-", "olmcat-spool-", "olmcat-stdin-",
	"olmcat-git-", "olmcat-bundle-", "olmcat-image-", "olmcat-serve-index-", "olmcat-build-"}

// CreateError is a temporary file or directory that could not be created: TMPDIR (or the
// directory beside an output) does not exist, is not a directory, is not writable or is full.
// It does not unwrap, so that no caller takes it for a problem of an input (a file not found);
// Err is the cause alone.
type CreateError struct {
	Dir string // where the entry was to be created; "" for os.TempDir()
	Err error  // the cause (a syscall.Errno where there is one)
}

func (e *CreateError) Error() string {
	if e.Dir == "" || filepath.Clean(e.Dir) == filepath.Clean(os.TempDir()) {
		return fmt.Sprintf("cannot create a temporary file in %s (TMPDIR): %v; set TMPDIR to a directory this user can write, with free space",
			os.TempDir(), e.Err)
	}
	return fmt.Sprintf("cannot create a temporary file in %s: %v; make it a directory this user can write, with free space", e.Dir, e.Err)
}

func createError(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &CreateError{Dir: dir, Err: err}
}

// MkdirTempLocked creates a directory as os.MkdirTemp does and keeps it locked until unlock.
// The directory is not tracked. An error is a *CreateError.
func MkdirTempLocked(dir, pattern string) (path string, unlock func(), err error) {
	for range 100 {
		if path, err = os.MkdirTemp(dir, pattern); err != nil {
			return "", nil, createError(dir, err)
		}
		if unlock, ok := lockAndCheck(path, nil); ok {
			return path, unlock, nil
		}
	}
	return "", nil, errors.New("create a temporary directory in " + dir + ": removed by another process every time")
}

// CreateTempLocked creates a file as os.CreateTemp does and keeps it locked until unlock. The
// file is not tracked. An error creating it is a *CreateError.
func CreateTempLocked(dir, pattern string) (f *os.File, unlock func(), err error) {
	for range 100 {
		if f, err = os.CreateTemp(dir, pattern); err != nil {
			return nil, nil, createError(dir, err)
		}
		created, err := f.Stat()
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, nil, err
		}
		if unlock, ok := lockAndCheck(f.Name(), created); ok {
			return f, unlock, nil
		}
		f.Close()
	}
	return nil, nil, errors.New("create a temporary file in " + dir + ": removed by another process every time")
}

// RemoveStale removes the entries of dir whose names start with one of prefixes, that belong to
// this user and that no process holds locked: the temporary files of olmcat processes that were
// killed. Names ending in ".old" (a previous output moved aside while a new one was put in place)
// are left alone: they may be the only copy. It returns what it removed.
func RemoveStale(dir string, prefixes ...string) (removed []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".old") || !hasAnyPrefix(name, prefixes) {
			continue
		}
		path := filepath.Join(dir, name)
		if companionOfLiveDatabase(path) {
			continue
		}
		unlock, ok := lockIfAbandoned(path)
		if !ok {
			continue
		}
		err := os.RemoveAll(path)
		unlock()
		if err == nil {
			removed = append(removed, path)
		}
	}
	return removed
}

// sqliteCompanions are the files SQLite keeps beside a database while it writes it.
var sqliteCompanions = []string{"-journal", "-wal", "-shm"}

// companionOfLiveDatabase tells whether path is a SQLite journal (or WAL, or shared memory file)
// whose database is still there. SQLite creates these beside a locked temporary database (an
// old index's served copy) and they carry no lock of their own: removing one while another
// process writes its database fails that process's commit ("disk I/O error"). It goes with its
// database: once the database is gone, the next run removes it.
func companionOfLiveDatabase(path string) bool {
	for _, suffix := range sqliteCompanions {
		if db, ok := strings.CutSuffix(path, suffix); ok {
			if _, err := os.Lstat(db); err == nil {
				return true
			}
		}
	}
	return false
}

func hasAnyPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
