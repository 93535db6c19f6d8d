package lspclient

import (
	"errors"
	"os"
	"syscall"
	"time"
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

// sigStop and sigCont have no meaning on Windows, where signalPID kills.
const sigStop, sigCont = syscall.Signal(0x13), syscall.Signal(0x12)

// cpuTime is not measured on Windows.
func cpuTime() time.Duration { return 0 }
