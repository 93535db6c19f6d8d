//go:build !unix

package bridge

import "os/exec"

// inProcessGroup leaves cmd as it is: cancelling it kills the process
// alone.
func inProcessGroup(cmd *exec.Cmd) {}
