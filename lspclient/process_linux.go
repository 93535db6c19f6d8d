package lspclient

import "syscall"

// sysProcAttr puts gopls in a process group of its own and has the kernel
// kill it if goplsmcp dies without a chance to stop it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
