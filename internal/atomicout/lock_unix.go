//go:build unix && !aix && !solaris

package atomicout

import (
	"os"
	"syscall"
	"time"
)

// lockDir takes an exclusive flock on dir, waiting at most lockWait; without one (no flock on the
// file system, the wait over) it locks nothing.
func lockDir(dir string) (unlock func()) {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			return func() {}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
