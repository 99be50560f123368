// Package readonlytest makes directories unwritable for the rest of a test, also for root.
package readonlytest

import (
	"os"
	"os/exec"
	"testing"
)

// Make makes dirs unwritable for this process until the test ends: by their mode, or for root,
// whom modes do not stop, with the immutable attribute (the test is skipped where chattr cannot
// set it).
func Make(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if os.Geteuid() != 0 {
			if err := os.Chmod(d, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(d, 0o755) })
			continue
		}
		if out, err := exec.Command("chattr", "+i", d).CombinedOutput(); err != nil {
			t.Skipf("running as root and cannot make %s immutable: %v %s", d, err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", d).Run() })
	}
}
