package fbcbackend

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// A full disk fails finish; the abort that follows must end the writer quietly, not close its
// queue a second time (issue 19: "close of closed channel").
func TestStoreWriterFullDiskThenAbort(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("cannot open /dev/full: %v", err)
	}
	w := newStoreWriter(f, true)
	w.append(make([]byte, 3<<20)) // more than the writer's buffer: the write reaches the device
	_, _, err = w.finish(true)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("finish on a full disk: %v, want no space left on device", err)
	}
	w.abort()
	w.abort()
}
