package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// processStart names the live process pid by its start time, to the
// microsecond (kern.proc.pid), which a process that reuses the pid does
// not share, and returns the uid it runs as. errNoProcess: no such
// process, or a zombie.
func processStart(pid int) (start string, uid int, err error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(k.Proc.P_pid) != pid || k.Proc.P_stat == 5 /* SZOMB */ {
		return "", 0, errNoProcess
	}
	tv := k.Proc.P_starttime
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec), int(k.Eproc.Ucred.Uid), nil
}
