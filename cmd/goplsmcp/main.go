// Command goplsmcp is an MCP server that answers questions about Go code by
// asking gopls, which it starts and owns.
//
// main only prepares the process (signals, the protocol's hold on stdout)
// and calls run, which tests call directly.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if asInit() {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	defer stop()
	// A shared daemon outlives the session that started it.
	if len(os.Args) < 2 || os.Args[1] != "daemon" {
		bindChildren()
	}

	// The protocol owns stdout. Anything else that writes to file
	// descriptor 1 while serving lands on stderr instead.
	stdout, err := reserveStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp:", err)
		os.Exit(1)
	}
	err = run(ctx, os.Args[1:], os.Stdin, stdout, os.Stderr)
	stdout.Close()
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "goplsmcp:", ee.msg)
		}
		os.Exit(ee.code)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp:", err)
		os.Exit(1)
	}
}

// stopSignals are the signals that stop goplsmcp with a drain. A hangup
// (the terminal or the shell that started it went away) is one of them
// unless goplsmcp was started with it ignored, as nohup does: asking for
// it would undo that. The servers meant to outlive their shell, --http and
// the shared daemon, ignore it again once they know what they are (see
// run).
func stopSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGINT}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// outliveShell keeps a server that is meant to outlive the shell or
// terminal that started it (--http, the shared daemon) from stopping on
// their hangup; SIGTERM and SIGINT still stop it.
func outliveShell() { signal.Ignore(syscall.SIGHUP) }
