//go:build !unix

package bridge

import (
	"os/exec"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// inProcessGroup makes cancelling cmd end it and every process it started;
// goplsmcp's job object ends them with goplsmcp.
func inProcessGroup(cmd *exec.Cmd) { lspclient.GuardCommand(cmd) }
