//go:build unix

package main

import (
	"errors"
	"fmt"
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

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// signalProcess sends sig to pid.
func signalProcess(pid int, sig syscall.Signal) error {
	return unix.Kill(pid, sig)
}

// privateFile returns an error unless fi, from Lstat or a Stat of an open
// file, is a file of the runtime directory this user could have made:
// owned by the user, of the type wanted (0 for a regular file; a link
// is never one), and, if regular, with no other name, for a hard link
// planted there would make a write to it a write to someone's file.
func privateFile(fi fs.FileInfo, typ fs.FileMode) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return errors.New("cannot be checked")
	case fi.Mode().Type() != typ:
		return fmt.Errorf("is not a %s (mode %v)", kindName(typ), fi.Mode())
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("belongs to uid %d", st.Uid)
	case typ == 0 && st.Nlink != 1:
		return fmt.Errorf("has %d names", st.Nlink)
	}
	return nil
}

func kindName(typ fs.FileMode) string {
	if typ == fs.ModeSocket {
		return "socket"
	}
	return "regular file"
}

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
