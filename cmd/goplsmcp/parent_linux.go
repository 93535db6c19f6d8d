package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// dieWithParent asks the kernel for SIGTERM when the parent process dies, so
// that an orphaned goplsmcp shuts down (and takes gopls with it).
//
// Linux keeps the request on the calling thread and honours it while that
// thread lives. Go ends a thread only when a goroutine locked to it exits,
// which none here does, so the request lasts as long as the process. (On
// the parent's side, the signal comes when the thread that started us
// ends; the end of stdin covers parents that outlive such a thread.)
func dieWithParent() {
	ppid := os.Getppid()
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0)
	// A parent that died before the request sends no signal: we have
	// been adopted already.
	if os.Getppid() != ppid {
		_ = unix.Kill(os.Getpid(), unix.SIGTERM)
	}
}
