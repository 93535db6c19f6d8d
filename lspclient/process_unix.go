//go:build unix

package lspclient

import "syscall"

// signal sends sig to gopls's process group, so that the go commands it
// runs go with it.
func (p *process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}
