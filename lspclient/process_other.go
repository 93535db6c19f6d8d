//go:build unix && !linux

package lspclient

import "syscall"

// sysProcAttr puts gopls in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
