//go:build unix

package lspclient

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// leftOverlay says whether fi, an overlay file named for pid, was left by
// a goplsmcp of this user that has ended: a regular file (not a link)
// owned by this user, and no process pid exists. A live pid, even one
// reused by another program, keeps its file: removing a running server's
// overlay would break its go commands, and a file kept too long costs
// only its bytes.
func leftOverlay(fi fs.FileInfo, pid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() || int(st.Uid) != os.Getuid() || pid <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
