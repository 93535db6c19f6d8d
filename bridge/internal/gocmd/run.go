package gocmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Timeout bounds each go command run with a context that has no deadline.
// The commands run here (go env, go version, go list -find) take well
// under a second on a quiet machine; the bound is for one that is stuck,
// and leaves a busy machine (a CPU hog on every core, a cold disk) the
// time it needs.
const Timeout = time.Minute

// Run runs the go command with args in dir, with env added to the
// environment, and returns its standard output. ctx bounds it (Timeout
// when ctx has no deadline): at its end the command is killed, and the
// error says it did not finish in time. Every go command the tools run
// goes through here.
func Run(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	began := time.Now()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	// A command killed at the deadline may have left a child holding its
	// output open; its output is not waited for long.
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	switch {
	case err == nil:
		return out, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("go %s did not finish within %s", strings.Join(args, " "), time.Since(began).Round(time.Millisecond))
	}
	return nil, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
}
