//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// inProcessGroup makes cmd the leader of a process group of its own, and
// its cancellation kill the whole group: the go commands it runs too.
func inProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
