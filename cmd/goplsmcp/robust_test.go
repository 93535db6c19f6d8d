//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// serving starts goplsmcp's session and waits until gopls has loaded the
// workspace, by way of one call.
func serving(t *testing.T, p *proc) {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if text, _, isError := p.call(2, "go_diagnostics", `{"files":["shapes/shapes.go"]}`); isError {
		t.Fatalf("first call failed: %s", text)
	}
}

func TestSignalStopsGopls(t *testing.T) {
	tests := []struct {
		name   string
		sig    syscall.Signal
		freeze bool // gopls is stopped (SIGSTOP) and answers nothing
	}{
		{"SIGTERM", syscall.SIGTERM, false},
		{"SIGINT", syscall.SIGINT, false},
		// The terminal or shell of a stdio session went away.
		{"SIGHUP", syscall.SIGHUP, false},
		{"SIGTERM with gopls frozen", syscall.SIGTERM, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.sig == syscall.SIGHUP && signal.Ignored(syscall.SIGHUP) {
				// goplsmcp inherits the ignored hangup and keeps it so, as
				// a program started under nohup must (TestHTTPOutlivesItsShell).
				t.Skip("the tests run with SIGHUP ignored (under nohup?), which goplsmcp then ignores too")
			}
			p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t))
			pid := p.goplsPID()
			serving(t, p)
			if tt.freeze {
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			}
			// A call that may be in flight is answered — by gopls, as
			// refused or as cancelled when the drain ends — and cannot hold
			// the exit up beyond the drain bound (TestSidecarDrainStdio
			// has the call in flight for certain).
			p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"go_diagnostics","arguments":{}}}`)
			// A ping is answered as it is read, after the call before it
			// has been read and started: a signal now finds the call
			// received, not still in the pipe.
			p.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
			answered := false
			for m := p.recv(); m["id"] != 4.0; m = p.recv() {
				answered = answered || m["id"] == 3.0
			}
			start := time.Now()
			if err := p.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.exited:
			case <-time.After(drainBound):
				t.Fatalf("goplsmcp still running %s after %v", drainBound, tt.sig)
			}
			if !answered {
				if m := p.recv(); m["id"] != 3.0 {
					t.Errorf("the call sent before %v: %v, want its answer", tt.sig, m)
				}
			}
			if !gone(pid) {
				t.Errorf("gopls %d still exists after goplsmcp exited", pid)
			}
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("goplsmcp exited with status %d after %v, want 0", code, tt.sig)
			}
			t.Logf("goplsmcp and gopls gone %s after %v", time.Since(start).Round(time.Millisecond), tt.sig)
		})
	}
}

// TestParentDeathLeavesSessionToStdin runs goplsmcp under a shell that is
// then killed, while the test holds goplsmcp's stdin: a session lives as
// long as its stdin, not its parent (a client may start servers from a
// process or thread that ends before the session does). goplsmcp goes on
// answering, and ends, taking gopls with it, once its stdin closes.
func TestParentDeathLeavesSessionToStdin(t *testing.T) {
	// The shell starts goplsmcp in the background with the shell's own
	// stdin (a background job would otherwise get /dev/null), says its pid,
	// and waits.
	script := `exec 3<&0; "$0" "$@" <&3 3<&- & echo "goplsmcp=$!" >&2; wait`
	sh := exec.Command("sh", "-c", script, binary, "--root", exampleRoot(t), "--gopls", goplsPath(t))
	p := startCmd(t, sh)
	server := p.stderrPID(`^goplsmcp=(\d+)$`)
	pid := p.goplsPID()
	serving(t, p)
	pidfd, err := unix.PidfdOpen(server, 0)
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	defer unix.Close(pidfd)
	if err := sh.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if text, _, isError := p.call(3, "go_describe", `{"file":"shapes/shapes.go","symbol":"Shape"}`); isError || !strings.Contains(text, "Shape") {
		t.Fatalf("go_describe after goplsmcp's parent was killed: %s", text)
	}

	start := time.Now()
	p.stdin.Close()
	// goplsmcp is not our child: its pidfd becomes readable when it ends.
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(shutdownBound/time.Millisecond))
	for errors.Is(err, unix.EINTR) {
		n, err = unix.Poll(fds, int((shutdownBound-time.Since(start))/time.Millisecond))
	}
	if err != nil || n == 0 {
		t.Fatalf("goplsmcp %d still running %s after its stdin closed (poll: %d, %v)", server, shutdownBound, n, err)
	}
	if !waitGone(pid, start.Add(shutdownBound)) {
		t.Errorf("gopls %d still exists %s after goplsmcp's stdin closed", pid, shutdownBound)
	}
	t.Logf("goplsmcp and gopls gone %s after the stdin closed", time.Since(start).Round(time.Millisecond))
}

// TestGoplsKilledDuringCalls kills gopls under the real binary while tool
// calls are in flight: each call is answered, and the server goes on with
// a new gopls.
func TestGoplsKilledDuringCalls(t *testing.T) {
	p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t), "--timeout", "20s")
	pid := p.goplsPID()
	serving(t, p)

	calls := []struct{ tool, args string }{
		{"go_diagnostics", `{}`},
		{"go_definition", `{"file":"report/report.go","symbol":"shapes.TotalArea"}`},
		{"go_symbol_references", `{"file":"shapes/shapes.go","symbol":"Shape"}`},
		{"go_describe", `{"file":"shapes/shapes.go","symbol":"Rect.Area"}`},
	}
	id := 100
	for round := range 2 {
		want := map[float64]string{}
		for _, c := range calls {
			id++
			want[float64(id)] = c.tool
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, c.tool, c.args))
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for range calls {
			m := p.recv()
			tool, ok := want[m["id"].(float64)]
			if !ok {
				t.Fatalf("round %d: unexpected message %v", round, m)
			}
			delete(want, m["id"].(float64))
			res, ok := m["result"].(map[string]any)
			if !ok {
				t.Errorf("round %d: %s answered with a protocol error %v; want a tool result", round, tool, m["error"])
				continue
			}
			if isError, _ := res["isError"].(bool); isError {
				t.Errorf("round %d: %s failed after the kill: %v", round, tool, res["content"])
			}
		}
		next := p.goplsPID()
		if next == pid {
			t.Fatalf("round %d: no new gopls after the kill", round)
		}
		if !waitGone(pid, time.Now().Add(5*time.Second)) {
			t.Errorf("round %d: killed gopls %d was not reaped", round, pid)
		}
		pid = next
	}
	text, _, isError := p.call(900, "go_definition", `{"file":"main.go","line":13,"column":23}`)
	if isError || text != "report/report.go:11:6: func Summary(list []shapes.Shape) string {" {
		t.Errorf("call after two kills = %q (isError %v)", text, isError)
	}
}

// TestAllowNetworkFlag checks what reaches gopls's environment with and
// without --allow-network.
func TestAllowNetworkFlag(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			args := []string{"--root", exampleRoot(t), "--gopls", goplsPath(t)}
			if allow {
				args = append(args, "--allow-network")
			}
			p := startBinary(t, args...)
			pid := p.goplsPID()
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if err != nil {
				t.Skipf("cannot read gopls's environment: %v", err)
			}
			env := strings.Split(string(data), "\x00")
			offline := slices.Contains(env, "GOPROXY=off") && slices.Contains(env, "GOTOOLCHAIN=local")
			if offline == allow {
				t.Errorf("with --allow-network=%v, gopls runs offline: %v", allow, offline)
			}
		})
	}
}
