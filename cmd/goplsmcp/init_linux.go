package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// initChildEnv marks the goplsmcp that a goplsmcp running as PID 1 starts.
const initChildEnv = "GOPLSMCP_INIT_CHILD=1"

// asInit, when goplsmcp is PID 1 (a container's command), runs it as a
// child and stays behind as a minimal init: it passes on the signals that
// end a container, reaps every orphan the kernel hands it — gopls's go
// commands included — and exits as the child did. A PID 1 that did not
// reap would collect zombies across gopls's restarts; and Go's exec
// cannot reap processes that are not its own children. It returns false
// when goplsmcp is not PID 1 (or is that child).
func asInit() bool {
	if os.Getpid() != 1 || os.Getenv("GOPLSMCP_INIT_CHILD") != "" {
		return false
	}
	os.Exit(runInit())
	return true
}

func runInit() int {
	sigs := make(chan os.Signal, 16)
	forward := []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
	signal.Notify(sigs, append(forward, syscall.SIGCHLD)...)
	exe, err := os.Executable()
	if err != nil {
		exe = "/proc/self/exe"
	}
	child, err := os.StartProcess(exe, os.Args, &os.ProcAttr{
		Env:   append(os.Environ(), initChildEnv),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp:", err)
		return 1
	}
	for {
		// Reap whatever has ended; the child's end ends the init.
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil || pid <= 0 {
				break
			}
			if pid == child.Pid {
				if ws.Signaled() {
					return 128 + int(ws.Signal())
				}
				return ws.ExitStatus()
			}
		}
		sig := <-sigs
		if sig != syscall.SIGCHLD {
			_ = child.Signal(sig)
		}
	}
}
