package mcp

import "golang.org/x/sys/unix"

// peerUID reads the user of the process at the other end of the unix
// socket fd (LOCAL_PEERCRED, what getpeereid reads), and names that
// process for messages.
func peerUID(fd int) (uid int, who string, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, "", err
	}
	return int(cred.Uid), "peer process", nil
}
