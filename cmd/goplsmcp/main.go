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
	"sync/atomic"
	"syscall"
)

func main() {
	if asInit() {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	stopOnHangup(stop)
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

// hangupIgnored is set by outliveShell: a hangup no longer stops goplsmcp.
var hangupIgnored atomic.Bool

// stopOnHangup makes a hangup (the terminal or the shell that started
// goplsmcp went away) stop it with a drain, as SIGTERM does, unless
// goplsmcp was started with hangups ignored, as nohup does, or is a server
// meant to outlive its shell (outliveShell). The signal is caught, never
// ignored: an ignored signal would stay ignored in gopls and every process
// goplsmcp starts.
func stopOnHangup(stop func()) {
	if signal.Ignored(syscall.SIGHUP) {
		return
	}
	// Never closed, and a hangup that finds it full is dropped: goplsmcp
	// stops at the first.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			if !hangupIgnored.Load() {
				stop()
			}
		}
	}()
}

// outliveShell keeps a server that is meant to outlive the shell or
// terminal that started it (--http, the shared daemon) from stopping on
// their hangup; SIGTERM and SIGINT still stop it.
func outliveShell() { hangupIgnored.Store(true) }
