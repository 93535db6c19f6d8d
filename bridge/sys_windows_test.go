package bridge

import (
	"errors"
	"os"
	"syscall"
)

// mkfifo has no equivalent on Windows: the tests that need it are skipped.
func mkfifo(path string, mode uint32) error { return errors.ErrUnsupported }

// signalPID kills process pid for any signal but 0, which checks that it
// exists.
func signalPID(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil || sig == 0 {
		return err
	}
	return p.Kill()
}
