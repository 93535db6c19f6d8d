//go:build unix

package lspclient

import "syscall"

// sysProcAttr puts gopls in a process group of its own, which the guard
// ends however goplsmcp ends (guard_unix.go). No parent-death signal:
// Linux sends it when the thread that started gopls ends, not goplsmcp,
// and the guard already covers goplsmcp's death.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// A procTree is gopls and what it starts: its process group, which the
// guard ends should goplsmcp die without stopping it (see guard_unix.go).
type procTree struct {
	pgid int
}

func startTree(pid int) (*procTree, error) {
	guardGroup(pid)
	return &procTree{pgid: pid}, nil
}

// release tells the guard the group has been ended.
func (t *procTree) release() {
	if t != nil {
		unguardGroup(t.pgid)
	}
}

// signal sends sig to gopls's process group, so that the go commands it
// runs go with it.
func (p *process) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}
