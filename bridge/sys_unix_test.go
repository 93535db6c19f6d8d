//go:build unix

package bridge

import "syscall"

// mkfifo makes a named pipe, which some tests use to block a reader.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// signalPID sends sig to process pid; signal 0 checks that it exists.
func signalPID(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }
