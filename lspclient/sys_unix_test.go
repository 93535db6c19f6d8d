//go:build unix

package lspclient

import (
	"syscall"
	"time"
)

// mkfifo makes a named pipe, which some tests use to block a reader.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// signalPID sends sig to process pid; signal 0 checks that it exists.
func signalPID(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// sigStop and sigCont freeze and thaw a process.
const sigStop, sigCont = syscall.SIGSTOP, syscall.SIGCONT

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
