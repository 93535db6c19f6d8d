//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// shareSupported: unix sockets whose peer's user can be checked.
const shareSupported = true

// lockFile takes an exclusive lock on path, waiting for it, and returns
// the function that releases it. The lock goes with the process, so a
// starter killed while holding it blocks no one.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// detached makes a daemon a session of its own, out of the terminal's and
// the client's process group, so that it outlives the session that
// started it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// signalProcess sends sig to pid.
func signalProcess(pid int, sig syscall.Signal) error {
	return unix.Kill(pid, sig)
}
