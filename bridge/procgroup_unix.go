//go:build unix

package bridge

import (
	"os/exec"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// inProcessGroup makes cmd the leader of a process group of its own, and
// its cancellation kill the whole group: the go commands it runs too. The
// group also ends with goplsmcp, however goplsmcp ends (lspclient's guard).
func inProcessGroup(cmd *exec.Cmd) { lspclient.GuardCommand(cmd) }
