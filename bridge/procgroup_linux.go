package bridge

import "syscall"

// groupAttr puts a command in a process group of its own and has the
// kernel kill it if goplsmcp dies without a chance to stop it.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
