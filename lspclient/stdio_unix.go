//go:build unix

package lspclient

import (
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

// newStdio makes gopls's standard streams of Unix domain sockets, not
// pipes: a workspace file that links to one of gopls's own streams
// (/proc/self/fd/0, /dev/stdin, /dev/fd/2) then names a socket, which
// open(2) refuses (ENXIO on Linux, EOPNOTSUPP on macOS), where a pipe would
// open and have gopls read its own input, or block on its own stderr,
// forever. stdin and stdout are one socket: our end reads what gopls
// writes and writes what it reads, and shutting down our sending half is
// the end of gopls's input.
func newStdio() (*stdio, error) {
	ours, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	errOurs, errTheirs, err := socketPair()
	if err != nil {
		closeAll(ours, theirs)
		return nil, err
	}
	// net.FileConn takes its own descriptor, pollable, with deadlines.
	conn, err := net.FileConn(ours)
	closeAll(ours)
	if err != nil {
		closeAll(theirs, errOurs, errTheirs)
		return nil, err
	}
	errConn, err := net.FileConn(errOurs)
	closeAll(errOurs)
	if err != nil {
		closeAll(conn, theirs, errTheirs)
		return nil, err
	}
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		closeAll(conn, errConn, theirs, errTheirs)
		return nil, fmt.Errorf("a socket pair is a %T, not a Unix connection", conn)
	}
	return &stdio{
		childIn: theirs, childOut: theirs, childErr: errTheirs,
		out: uc, in: uc, closeIn: uc.CloseWrite, closers: []io.Closer{uc},
		errR: errConn,
	}, nil
}

// socketPair returns the two ends of a new connected stream socket pair,
// neither inherited by a process started meanwhile (exec gives the child
// only what it is told to).
func socketPair() (*os.File, *os.File, error) {
	// As the net package does where SOCK_CLOEXEC is not to be had (macOS):
	// no fork between the socket's creation and its close-on-exec flag.
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("making a socket pair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "gopls stdio (ours)"), os.NewFile(uintptr(fds[1]), "gopls stdio"), nil
}
