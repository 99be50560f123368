//go:build unix

package main

import "golang.org/x/sys/unix"

// outputGone reports whether standard output or standard error is a pipe (or socket) whose
// reader has gone. A process that asks for SIGPIPE gets it for a write to any broken pipe or
// socket, a server's client connections included: only one of these two is a reason to stop.
func outputGone() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	for {
		_, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false // cannot tell; a write to the output itself will fail and say so
		}
		break
	}
	for _, fd := range fds {
		if fd.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
