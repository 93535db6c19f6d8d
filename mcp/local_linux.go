package mcp

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerUID reads the user of the process at the other end of the unix
// socket fd (SO_PEERCRED), and names that process for messages.
func peerUID(fd int) (uid int, who string, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, "", err
	}
	return int(cred.Uid), fmt.Sprintf("peer process %d", cred.Pid), nil
}
