//go:build unix

package serve

import "syscall"

// raiseFileLimit raises the soft limit on open files to the hard one (Go does so at start since
// 1.19; this says so explicitly and reads the result) and returns it.
func raiseFileLimit() (int, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur < r.Max {
		want := r
		want.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err == nil {
			r = want
		}
	}
	if r.Cur > 1<<30 {
		return 1 << 30, nil
	}
	return int(r.Cur), nil
}
