//go:build unix && !aix && !solaris

package scratch

import (
	"os"
	"sync"
	"syscall"
)

// lockAndCheck locks path, which this process just created (want, when known, is what it
// created), and checks that path still names it. ok false means a cleaner removed it meanwhile:
// the caller creates another. Without flock the entry is kept, unlocked, and so never taken for
// stale (see lockIfAbandoned).
func lockAndCheck(path string, want os.FileInfo) (unlock func(), ok bool) {
	f, err := openEntry(path)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return func() {}, true
	}
	held, herr := f.Stat()
	now, nerr := os.Lstat(path)
	if herr != nil || nerr != nil || !os.SameFile(held, now) || (want != nil && !os.SameFile(held, want)) {
		f.Close()
		return nil, false
	}
	return hold(f), true
}

// locks keeps the files holding locks reachable: an *os.File that is garbage collected is closed,
// which would drop its lock while the entry is still in use.
var locks sync.Map

func hold(f *os.File) (unlock func()) {
	locks.Store(f, struct{}{})
	return sync.OnceFunc(func() {
		locks.Delete(f)
		f.Close()
	})
}

// lockIfAbandoned locks path if it belongs to this user and no process holds it locked. A
// file system without flock gives an error other than EWOULDBLOCK: then nothing is abandoned.
func lockIfAbandoned(path string) (unlock func(), ok bool) {
	fi, err := os.Lstat(path)
	if err != nil || !ownedByMe(fi) || !(fi.IsDir() || fi.Mode().IsRegular()) {
		return nil, false
	}
	f, err := openEntry(path)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// openEntry opens a temporary entry to lock it, never following a link nor blocking on a FIFO
// that someone swapped in after it was checked (a shared cache directory, issue 27.1): the
// caller then finds it is not the entry it looked at.
func openEntry(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
