//go:build unix

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/goplsmcp/goplsmcp/bridge"
	"golang.org/x/sys/unix"
)

// shareSupported: unix sockets whose peer's user can be checked.
const shareSupported = true

// lockFile takes an exclusive lock on path, waiting for it, and returns
// the function that releases it. The lock goes with the process, so a
// starter killed while holding it blocks no one.
func lockFile(path string) (unlock func(), err error) {
	f, err := openPrivate(path, os.O_CREATE|os.O_RDWR)
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

// signalProcess sends sig to pid.
func signalProcess(pid int, sig syscall.Signal) error {
	return unix.Kill(pid, sig)
}

// privateFile returns an error unless fi, from Lstat or a Stat of an open
// file, is a file of the runtime directory this user could have made
// (bridge.PrivateFile: the one decision, that of the journals too).
func privateFile(fi fs.FileInfo, typ fs.FileMode) error { return bridge.PrivateFile(fi, typ) }

// privateDir returns an error unless dir is a directory of this user's
// that no one else may write (bridge.PrivateDir).
func privateDir(dir string) error { return bridge.PrivateDir(dir) }

// openPrivate opens path, a file of the runtime directory, with flag (and
// mode 0600 if it is made), if it is this user's own (privateFile): never
// through a symbolic link, and without waiting on a FIFO planted there.
func openPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symbolic link", errUntrusted, path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = privateFile(fi, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s %v", errUntrusted, path, err)
	}
	// Fd puts the file back in blocking mode, as a log and a lock want.
	f.Fd()
	return f, nil
}
