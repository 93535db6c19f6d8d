//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// reserveStdout returns a private copy of stdout for the protocol and points
// file descriptor 1 at stderr, so that stray writes cannot corrupt the
// message stream.
func reserveStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "protocol-stdout"), nil
}
