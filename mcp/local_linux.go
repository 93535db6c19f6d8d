package mcp

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// checkPeer refuses a connection whose peer process runs as another user
// than uid, as the kernel reports it (SO_PEERCRED).
func checkPeer(conn net.Conn, uid int) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	if int(cred.Uid) != uid {
		return fmt.Errorf("peer process %d runs as uid %d, not %d", cred.Pid, cred.Uid, uid)
	}
	return nil
}
