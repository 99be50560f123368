// Package scratch keeps a process-wide list of temporary files and directories so that a signal
// handler can remove them before the process exits.
//
// A deferred cleanup does not run when SIGINT or SIGTERM ends the process: the handler runs on its
// own goroutine and exits with os.Exit, which skips the deferred functions of every other
// goroutine. Code that creates large temporary paths therefore Tracks them here, and the command's
// handler calls RemoveAll before exiting:
//
//	sig := make(chan os.Signal, 1)
//	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
//	go func() { <-sig; scratch.RemoveAll(); os.Exit(130) }()
package scratch

import (
	"os"
	"path/filepath"
	"sync"
)

var (
	mu     sync.Mutex
	nextID uint64
	paths  = map[uint64]string{} // keyed by registration, so one path may be tracked twice
)

// Track registers path (a file or a directory) for removal by RemoveAll. Call release once the
// path is no longer scratch: after it was renamed into place, or after removing it yourself.
// Calling release more than once, or after RemoveAll, does nothing.
func Track(path string) (release func()) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // a later chdir must not redirect the removal
	}
	mu.Lock()
	nextID++
	id := nextID
	paths[id] = path
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(paths, id)
		mu.Unlock()
	}
}

// RemoveAll removes every tracked path, best effort, and forgets them all. The lock is held while
// removing, so a release racing with it waits until the removal is over.
func RemoveAll() {
	mu.Lock()
	defer mu.Unlock()
	for id, p := range paths {
		os.RemoveAll(p) // best effort: the process is about to exit and has no one to tell
		delete(paths, id)
	}
}

// MkdirTemp creates a directory as os.MkdirTemp does, tracks it and locks it (see
// MkdirTempLocked). remove deletes the directory and everything in it, and releases it.
func MkdirTemp(dir, pattern string) (path string, remove func() error, err error) {
	path, unlock, err := MkdirTempLocked(dir, pattern)
	if err != nil {
		return "", nil, err
	}
	release := Track(path)
	return path, func() error {
		defer release()
		defer unlock()
		return os.RemoveAll(path)
	}, nil
}

// CreateTemp creates a file as os.CreateTemp does, tracks it and locks it (see CreateTempLocked).
// remove deletes the file and releases it; it does not close f.
func CreateTemp(dir, pattern string) (f *os.File, remove func() error, err error) {
	f, unlock, err := CreateTempLocked(dir, pattern)
	if err != nil {
		return nil, nil, err
	}
	name := f.Name()
	release := Track(name)
	return f, func() error {
		defer release()
		defer unlock()
		return os.Remove(name)
	}, nil
}
