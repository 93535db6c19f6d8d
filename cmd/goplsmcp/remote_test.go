//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemonSessions asks the gopls daemon at remote for its sessions, and
// returns how many clients other than the asking one it serves. env is
// the environment to resolve "auto" in.
func daemonSessions(t *testing.T, remote string, env []string) (int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, goplsPath(t), "-remote="+remote, "remote", "sessions")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("gopls remote sessions: %v", err)
	}
	var state struct {
		CurrentClientID string `json:"currentClientID"`
		Clients         []struct {
			SessionID string `json:"sessionID"`
		} `json:"clients"`
	}
	if err := json.Unmarshal(out, &state); err != nil {
		return 0, fmt.Errorf("gopls remote sessions printed %q: %v", out, err)
	}
	n := 0
	for _, c := range state.Clients {
		if c.SessionID != state.CurrentClientID {
			n++
		}
	}
	return n, nil
}

// waitSessions waits until the daemon serves want clients besides the
// asking one.
func waitSessions(t *testing.T, remote string, env []string, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := daemonSessions(t, remote, env)
		if err == nil && n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon at %s serves %d other clients (%v), want %d", remote, n, err, want)
		}
	}
}

// oneDaemon waits until a single gopls daemon listens under dir, and
// returns it. On a loaded machine gopls's -remote=auto dialer can give up
// on the daemon it started before that daemon has bound its socket; the
// forwarder then fails, goplsmcp starts it again, and it starts a second
// daemon. The first serves no client and ends after its idle timeout
// (gopls's -remote.listen.timeout, a minute), which is what this waits
// for.
func oneDaemon(t *testing.T, dir string) []int {
	t.Helper()
	deadline := time.After(90 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		now := daemonsIn(dir)
		if len(now) == 1 {
			return now
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("daemons under the test's runtime directory: %v, want one within 90s", now)
		}
	}
}

// cmdline returns the arguments of process pid.
func cmdline(pid int) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// execedCmdline returns pid's arguments once the kernel shows them. A
// started child can read as empty for a moment: exec closes the pipe that
// tells the parent it succeeded before it sets up the new argument pages,
// and a busy machine widens that window.
func execedCmdline(t *testing.T, pid int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		args := cmdline(pid)
		if len(args) > 0 && args[0] != "" {
			return args
		}
		select {
		case <-tick.C:
		case <-deadline:
			return args
		}
	}
}

// daemonsIn returns the gopls daemons listening on a socket under dir.
func daemonsIn(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		args := cmdline(pid)
		i := slices.Index(args, "-listen")
		if i >= 0 && i+1 < len(args) && strings.Contains(args[i+1], dir+string(filepath.Separator)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// forwarder waits for the next gopls goplsmcp starts, checks that it is
// a forwarder to remote, and returns its pid.
func forwarder(t *testing.T, p *proc, remote string) int {
	t.Helper()
	pid := p.goplsPID()
	if args := execedCmdline(t, pid); !slices.Contains(args, "-remote="+remote) {
		t.Errorf("goplsmcp's gopls %d runs %q, not as a forwarder to %s", pid, args, remote)
	}
	return pid
}

const definitionOfSummary = "report/report.go:11:6: func Summary(list []shapes.Shape) string {"

// TestRemoteSharesDaemon starts a gopls daemon on a socket of its own and
// two goplsmcp with --remote on it: both answer, through forwarders, and
// the daemon serves both. When they stop, the daemon, which is not
// theirs, runs on and serves no one.
func TestRemoteSharesDaemon(t *testing.T) {
	dir := realTempDir(t)
	remote := "unix;" + filepath.Join(dir, "gopls.sock")
	daemon := exec.Command(goplsPath(t), "serve", "-listen="+remote)
	daemon.Dir = dir
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	daemonDone := make(chan error, 1)
	go func() { daemonDone <- daemon.Wait() }()
	t.Cleanup(func() {
		daemon.Process.Kill()
		<-daemonDone
	})
	waitSessions(t, remote, os.Environ(), 0)

	var procs []*proc
	for i := range 2 {
		p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t), "--remote", remote)
		forwarder(t, p, remote)
		initialized(t, p)
		if text, _, isError := p.call(2, "go_definition", `{"file":"main.go","symbol":"report.Summary"}`); isError || text != definitionOfSummary {
			t.Errorf("goplsmcp %d: definition %q (isError %v)", i, text, isError)
		}
		// Workspace diagnostics come through the forwarder in full.
		if text, _, isError := p.call(4, "go_diagnostics", `{}`); isError || text != "broken/broken.go: 1 error\n"+
			`8:30: cannot use "1" (untyped string constant) as float64 value in struct literal` {
			t.Errorf("goplsmcp %d: workspace diagnostics %q (isError %v)", i, text, isError)
		}
		text, structured, _ := p.call(3, "go_workspace", `{}`)
		if structured["remote"] != remote || !strings.Contains(text, "shared gopls daemon: "+remote) {
			t.Errorf("goplsmcp %d: go_workspace does not name the daemon:\n%s", i, text)
		}
		procs = append(procs, p)
	}
	waitSessions(t, remote, os.Environ(), 2)

	for _, p := range procs {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(shutdownBound):
			t.Fatal("goplsmcp did not stop within 2s of its stdin closing")
		}
	}
	select {
	case err := <-daemonDone:
		t.Fatalf("the daemon ended with the goplsmcp that used it: %v", err)
	default:
	}
	waitSessions(t, remote, os.Environ(), 0)
}

// TestRemoteAuto runs two goplsmcp with --remote auto in an environment
// whose runtime directory is the test's, so that the daemon they find or
// start is theirs alone, never a user's. The first starts a daemon, the
// second shares it, and the daemon outlives the second. Killing the
// daemon ends the first's forwarder; goplsmcp starts another, which
// starts a new daemon, and answers again.
func TestRemoteAuto(t *testing.T) {
	runtimeDir := realTempDir(t)
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir, "TMPDIR="+runtimeDir)
	// Registered first, so it runs last: whatever daemon was started for
	// the test is stopped after the goplsmcp using it.
	t.Cleanup(func() {
		for _, pid := range daemonsIn(runtimeDir) {
			syscall.Kill(pid, syscall.SIGKILL)
			if !waitGone(pid, time.Now().Add(5*time.Second)) {
				t.Errorf("daemon %d outlived SIGKILL", pid)
			}
		}
	})
	start := func() (*proc, int) {
		t.Helper()
		cmd := exec.Command(binary, "--root", exampleRoot(t), "--gopls", goplsPath(t), "--remote", "auto")
		cmd.Env = env
		p := startCmd(t, cmd)
		pid := forwarder(t, p, "auto")
		initialized(t, p)
		return p, pid
	}
	definition := func(p *proc, id int, who string) {
		t.Helper()
		if text, _, isError := p.call(id, "go_definition", `{"file":"main.go","symbol":"report.Summary"}`); isError || text != definitionOfSummary {
			t.Errorf("%s: definition %q (isError %v)", who, text, isError)
		}
	}
	a, aForwarder := start()
	definition(a, 2, "first goplsmcp")
	daemons := oneDaemon(t, runtimeDir)
	if sockets, _ := filepath.Glob(filepath.Join(runtimeDir, "gopls-*-daemon.*")); len(sockets) != 1 {
		t.Errorf("daemon sockets: %v", sockets)
	}
	b, _ := start()
	definition(b, 2, "second goplsmcp")
	if got := daemonsIn(runtimeDir); !slices.Equal(got, daemons) {
		t.Errorf("daemons after the second goplsmcp: %v, want the first's alone %v", got, daemons)
	}
	waitSessions(t, "auto", env, 2)

	b.stdin.Close()
	select {
	case <-b.exited:
	case <-time.After(shutdownBound):
		t.Fatal("goplsmcp did not stop within 2s of its stdin closing")
	}
	waitSessions(t, "auto", env, 1)

	if err := syscall.Kill(daemons[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitGone(aForwarder, time.Now().Add(30*time.Second)) {
		t.Fatalf("forwarder %d still runs after its daemon died", aForwarder)
	}
	forwarder(t, a, "auto")
	definition(a, 3, "after the daemon died")
	if now := oneDaemon(t, runtimeDir); now[0] == daemons[0] {
		t.Errorf("daemons after the first died: %v (the dead one was %d)", now, daemons[0])
	}
	waitSessions(t, "auto", env, 1)
}
