package main

import "golang.org/x/sys/unix"

// dieWithParent asks the kernel for SIGTERM when the parent process dies, so
// that an orphaned goplsmcp shuts down (and takes gopls with it).
func dieWithParent() {
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0)
}
