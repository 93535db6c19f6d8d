//go:build linux || darwin

package mcp

import (
	"fmt"
	"net"
)

// checkPeer refuses a connection whose peer process runs as another user
// than uid, as the kernel reports it (peerUID, per system).
func checkPeer(conn net.Conn, uid int) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var peer int
	var who string
	var credErr error
	if err := raw.Control(func(fd uintptr) { peer, who, credErr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	if peer != uid {
		return fmt.Errorf("%s runs as uid %d, not %d", who, peer, uid)
	}
	return nil
}
