//go:build unix && !aix && !solaris

package fbcbackend

import (
	"os"
	"sync"
	"syscall"
	"time"
)

func lockOwner(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600) // NFS locks need a writable file
	if err != nil {
		return nil, err
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		// A filesystem without flock: without a lock file the directory is never taken for stale.
		f.Close()
		os.Remove(path)
		return func() {}, nil
	}
	return sync.OnceFunc(func() { f.Close() }), nil
}

// lockIfStale locks the lock file of dir if dir belongs to this user, the lock file is older than
// minAge and no process holds it. The lock is kept until unlock is called.
func lockIfStale(dir, lock string, minAge time.Duration) (unlock func(), ok bool) {
	dirInfo, err := os.Lstat(dir)
	if err != nil || !ownedByMe(dirInfo) {
		return nil, false
	}
	f, err := os.OpenFile(lock, os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !ownedByMe(st) || time.Since(st.ModTime()) < minAge {
		f.Close()
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
