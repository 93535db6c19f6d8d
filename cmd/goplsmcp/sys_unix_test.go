//go:build unix

package main

import (
	"errors"
	"syscall"
	"time"
)

// mkfifo makes a named pipe, which some tests use to block a reader.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// signalPID sends sig to process pid; signal 0 checks that it exists.
func signalPID(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// shutdownBound is the promise: every way of ending goplsmcp with no call
// in flight ends it, and gopls with it, within two seconds. With calls in
// flight, a signal lets them finish within drainBound.
const shutdownBound = 2 * time.Second

// gone reports whether no process pid exists any more, not even as a
// zombie waiting to be reaped.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitGone waits until pid is gone, at most until deadline.
func waitGone(pid int, deadline time.Time) bool {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !gone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
