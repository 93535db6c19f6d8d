package lspclient

import (
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// GuardCommand prepares cmd, not yet started, so that cancelling it ends
// it and every process it started (taskkill /T walks the tree). goplsmcp
// runs in a job object that ends them all when it ends (see the command's
// parent_windows.go).
func GuardCommand(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
	cmd.Cancel = func() error {
		err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
		if err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
