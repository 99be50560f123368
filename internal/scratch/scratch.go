// Package scratch tracks the temporary files and directories of the process, so that a signal
// handler can remove them before the process exits: deferred functions of other goroutines do not
// run when a signal ends the process.
package scratch

import (
	"os"
	"sync"
)

var (
	mu      sync.Mutex
	next    int
	tracked = map[int]string{}
)

// Track registers path to be removed by RemoveAll. release unregisters it (call it once the path is
// committed elsewhere or removed); calling release more than once is harmless.
func Track(path string) (release func()) {
	mu.Lock()
	id := next
	next++
	tracked[id] = path
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(tracked, id)
		mu.Unlock()
	}
}

// RemoveAll removes every tracked path, best effort, and forgets them.
func RemoveAll() {
	mu.Lock()
	paths := make([]string, 0, len(tracked))
	for id, p := range tracked {
		paths = append(paths, p)
		delete(tracked, id)
	}
	mu.Unlock()
	for _, p := range paths {
		os.RemoveAll(p)
	}
}

// MkdirTemp is os.MkdirTemp with the directory tracked; remove deletes and releases it.
func MkdirTemp(dir, pattern string) (path string, remove func() error, err error) {
	path, err = os.MkdirTemp(dir, pattern)
	if err != nil {
		return "", nil, err
	}
	release := Track(path)
	return path, func() error {
		err := os.RemoveAll(path)
		release()
		return err
	}, nil
}

// CreateTemp is os.CreateTemp with the file tracked; remove deletes and releases it.
func CreateTemp(dir, pattern string) (*os.File, func() error, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, nil, err
	}
	release := Track(f.Name())
	return f, func() error {
		err := os.Remove(f.Name())
		release()
		return err
	}, nil
}
