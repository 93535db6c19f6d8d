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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// A shared daemon outlives the session that started it.
	if len(os.Args) < 2 || os.Args[1] != "daemon" {
		dieWithParent()
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
