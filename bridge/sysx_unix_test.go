//go:build unix

package bridge_test

import "syscall"

// mkfifo makes a named pipe, which some tests use to block a reader.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }
