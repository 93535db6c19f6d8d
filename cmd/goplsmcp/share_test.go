//go:build linux

package main

import (
	"bytes"
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

	"github.com/google/go-cmp/cmp"
)

// The shared daemon (docs/daemon.md), through the real binary:
// stdio sessions started as clients start them, each test with a runtime
// directory of its own whose daemons it stops.

// shared is one test's runtime directory and the environment that points
// goplsmcp at it with sharing on.
type shared struct {
	t   *testing.T
	dir string
	env []string
}

func newShared(t *testing.T) *shared {
	t.Helper()
	dir, err := os.MkdirTemp(runtimeRoot, "t")
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envShare+"=") && !strings.HasPrefix(kv, envRuntimeDir+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, envRuntimeDir+"="+dir)
	sh := &shared{t: t, dir: dir, env: env}
	t.Cleanup(func() {
		if left := stopTestDaemons(dir); left != "" {
			t.Errorf("daemons survived goplsmcp daemon stop: %s", left)
		}
	})
	return sh
}

// session starts a stdio goplsmcp with sharing on (the default).
func (sh *shared) session(args ...string) *proc {
	sh.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append([]string(nil), sh.env...)
	p := startCmd(sh.t, cmd)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"share","version":"0"}}}`)
	if m := p.recv(); m["result"] == nil {
		sh.t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

// list is goplsmcp daemon list --json.
func (sh *shared) list() []daemonInfo {
	sh.t.Helper()
	cmd := exec.Command(binary, "daemon", "list", "--json")
	cmd.Env = sh.env
	out, err := cmd.Output()
	if err != nil {
		sh.t.Fatalf("goplsmcp daemon list: %v", err)
	}
	var list []daemonInfo
	if err := json.Unmarshal(out, &list); err != nil {
		sh.t.Fatalf("goplsmcp daemon list --json: %v\n%s", err, out)
	}
	return list
}

// waitList waits until the daemons listed satisfy ok.
func (sh *shared) waitList(what string, ok func([]daemonInfo) bool) []daemonInfo {
	sh.t.Helper()
	var list []daemonInfo
	if !poll(30*time.Second, 20*time.Millisecond, func() bool { list = sh.list(); return ok(list) }) {
		sh.t.Fatalf("no %s within 30s: %+v", what, list)
	}
	return list
}

// goplsUnder counts the live gopls processes among the descendants of
// pids.
func goplsUnder(t *testing.T, pids ...int) []int {
	t.Helper()
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+2:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
	}
	var found []int
	var walk func(pid int)
	walk = func(pid int) {
		for _, c := range children[pid] {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c)); strings.TrimSpace(string(comm)) == "gopls" {
				// Not below it: gopls may run itself as a helper
				// (telemetry uploads).
				found = append(found, c)
				continue
			}
			walk(c)
		}
	}
	for _, pid := range pids {
		walk(pid)
	}
	return found
}

const brokenReport = `{"file":"report/report.go","text":"package report\n\nvar X int = \"s\"\n"}`

// overlayError is what go_diagnostics says of report.go with the unsaved
// text of brokenReport; importerError what it says then of main.go, while
// the session's unsaved report.go lasts (naming report.go alone would end
// it: the file as it is on disk).
const (
	overlayError  = `3:13: cannot use "s" (untyped string constant) as int value`
	importerError = `undefined: report.Summary`
	mainGo        = `{"file":"main.go"}`
)

func TestShareTwoSessionsOneGopls(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	args := []string{"--root", root, "--gopls", goplsPath(t)}
	p1 := sh.session(args...)
	start := time.Now()
	text, _, _ := p1.call(1, "go_symbol_references", `{"file":"shapes/shapes.go","symbol":"Shape"}`)
	first := time.Since(start)
	if !strings.Contains(text, "main.go") {
		t.Fatalf("session 1's references of Shape name no main.go:\n%s", text)
	}

	p2 := sh.session(args...)
	start = time.Now()
	text2, _, _ := p2.call(1, "go_symbol_references", `{"file":"shapes/shapes.go","symbol":"Shape"}`)
	second := time.Since(start)
	if diff := cmp.Diff(text, text2); diff != "" {
		t.Errorf("the sessions' answers differ (-1 +2):\n%s", diff)
	}
	// The workspace is loaded already: no gopls to start, nothing to load.
	t.Logf("first answer: session 1 %v, session 2 %v", first, second)
	if second > first/2 && second > 200*time.Millisecond {
		t.Errorf("session 2's first answer took %v, session 1's (which loaded the workspace) %v", second, first)
	}

	list := sh.waitList("daemon with two sessions", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 2 })
	if got := goplsUnder(t, p1.cmd.Process.Pid, p2.cmd.Process.Pid); len(got) != 1 || got[0] != list[0].GoplsPID {
		t.Errorf("gopls processes under the two sessions: %v, want the daemon's alone (%d)", got, list[0].GoplsPID)
	}

	// One session's unsaved text is not the other's.
	if text, _, _ := p1.call(2, "go_diagnostics", brokenReport); !strings.Contains(text, overlayError) {
		t.Fatalf("session 1's diagnostics of its unsaved report.go:\n%s", text)
	}
	if text, _, _ := p2.call(2, "go_diagnostics", mainGo); strings.Contains(text, importerError) {
		t.Errorf("session 2 sees session 1's unsaved report.go:\n%s", text)
	}
	if text, _, _ := p1.call(3, "go_diagnostics", mainGo); !strings.Contains(text, importerError) {
		t.Errorf("session 1 lost its unsaved report.go:\n%s", text)
	}

	// kill -9 of session 1's process: its session ends, session 2 goes on.
	p1.cmd.Process.Kill()
	<-p1.exited
	sh.waitList("daemon with one session", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 1 })
	if text, _, _ := p2.call(3, "go_symbol_references", `{"file":"shapes/shapes.go","symbol":"Shape"}`); text != text2 {
		t.Errorf("session 2 after session 1 was killed:\n%s", text)
	}
	if text, _, _ := p2.call(4, "go_diagnostics", mainGo); strings.Contains(text, importerError) {
		t.Errorf("session 2 sees the killed session's unsaved report.go:\n%s", text)
	}

	// goplsmcp call with the same flags asks the running daemon.
	cmd := exec.Command(binary, append([]string{"call", "--log-level", "info"}, append(args, "go_diagnostics", `{"file":"broken/broken.go"}`)...)...)
	cmd.Env = sh.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "broken/broken.go: 1 error") {
		t.Errorf("goplsmcp call: %s\n%s", out, stderr.String())
	}
	if strings.Contains(stderr.String(), "started gopls") {
		t.Errorf("goplsmcp call started a gopls of its own beside the daemon:\n%s", stderr.String())
	}
}

func TestShareDaemonKilled(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	args := []string{"--root", root, "--gopls", goplsPath(t)}
	p1 := sh.session(args...)
	p2 := sh.session(args...)
	if text, _, _ := p1.call(1, "go_diagnostics", brokenReport); !strings.Contains(text, overlayError) {
		t.Fatalf("session 1's diagnostics of its unsaved report.go:\n%s", text)
	}
	if text, _, _ := p2.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
		t.Fatalf("session 2's go_workspace:\n%s", text)
	}
	old := sh.waitList("daemon with two sessions", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 2 })[0]

	// kill -9 of the daemon; its gopls dies with it.
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitDead(20*time.Second, old.PID, old.GoplsPID) {
		t.Fatalf("the killed daemon %d or its gopls %d still runs after 20s", old.PID, old.GoplsPID)
	}

	// Each session's next call is answered, through a new daemon, with
	// its unsaved text given again.
	if text, _, isErr := p1.call(2, "go_diagnostics", mainGo); isErr || !strings.Contains(text, importerError) {
		t.Errorf("session 1 after the daemon was killed (unsaved report.go lost?):\n%s", text)
	}
	if text, _, isErr := p2.call(2, "go_diagnostics", mainGo); isErr || strings.Contains(text, importerError) || !strings.Contains(text, "broken/broken.go") {
		t.Errorf("session 2 after the daemon was killed:\n%s", text)
	}
	list := sh.waitList("new daemon with two sessions", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 2 })
	if list[0].PID == old.PID {
		t.Errorf("the daemon listed is the one killed: %+v", list[0])
	}
	for i, p := range []*proc{p1, p2} {
		if n := stderrCount(p, "lost the connection to the server"); n != 1 {
			t.Errorf("session %d lost its connection %d times, want 1", i+1, n)
		}
	}
}

// stderrCount counts the stderr lines of p seen so far that contain s.
func stderrCount(p *proc, s string) int {
	n := 0
	for {
		select {
		case line := <-p.stderr:
			if strings.Contains(line, s) {
				n++
			}
		default:
			return n
		}
	}
}

func TestShareOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to run a client as nobody")
	}
	sh := newShared(t)
	root := exampleRoot(t)
	sh.session("--root", root, "--gopls", goplsPath(t))
	list := sh.waitList("daemon", func(l []daemonInfo) bool { return len(l) == 1 })
	sock := filepath.Join(sh.dir, list[0].Key+".sock")

	// The client: this test binary, copied where nobody may run it.
	helperDir, err := os.MkdirTemp("", "share-helper")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(helperDir) })
	os.Chmod(helperDir, 0o755)
	self, _ := os.Executable()
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(helperDir, "client")
	if err := os.WriteFile(helper, data, 0o755); err != nil {
		t.Fatal(err)
	}
	dial := func(uid uint32) string {
		cmd := exec.Command(helper)
		cmd.Env = append(os.Environ(), "GOPLSMCP_DIAL="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := dial(0); !strings.Contains(out, "ANSWER") {
		t.Fatalf("the same user's client got no answer:\n%s", out)
	}
	// The directory keeps others out.
	if out := dial(65534); !strings.Contains(out, "permission denied") {
		t.Errorf("nobody reached the socket in the 0700 directory:\n%s", out)
	}
	// And were it open, the daemon itself refuses them.
	// (The runtime directory and those above it that the tests made are
	// opened to others for this.)
	for d := sh.dir; d != "/" && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, fi.Mode().Perm()) })
	}
	os.Chmod(sock, 0o666)
	out := dial(65534)
	if !strings.Contains(out, "NO ANSWER") {
		t.Errorf("nobody was answered by root's daemon:\n%s", out)
	}
}

func TestShareKeysAndOff(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	args := []string{"--root", root, "--gopls", goplsPath(t)}
	p1 := sh.session(args...)
	p2 := sh.session(append(args, "--build-flags", "-tags=integration")...)
	p3 := sh.session(args...)
	for i, p := range []*proc{p1, p2, p3} {
		if text, _, _ := p.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
			t.Fatalf("session %d: go_workspace:\n%s", i+1, text)
		}
	}
	list := sh.waitList("two daemons", func(l []daemonInfo) bool {
		return len(l) == 2 && l[0].Sessions+l[1].Sessions == 3
	})
	var flagged int
	for _, d := range list {
		if strings.Contains(strings.Join(d.Args, " "), "-tags=integration") {
			flagged++
			if d.Sessions != 1 {
				t.Errorf("the -tags=integration daemon has %d sessions, want 1", d.Sessions)
			}
		}
	}
	if flagged != 1 {
		t.Errorf("daemons with -tags=integration: %d, want 1: %+v", flagged, list)
	}

	// --share off: a gopls of its own, and no daemon more.
	cmd := exec.Command(binary, append(args, "--share", "off")...)
	cmd.Env = sh.env
	p4 := startCmd(t, cmd)
	pid := p4.goplsPID()
	if got := goplsUnder(t, p4.cmd.Process.Pid); len(got) != 1 || got[0] != pid {
		t.Errorf("gopls under the --share off session: %v, want its own %d", got, pid)
	}
	if l := sh.list(); len(l) != 2 {
		t.Errorf("daemons after a --share off session: %d, want 2", len(l))
	}
}

func TestShareIdleExit(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	p := sh.session("--root", root, "--gopls", goplsPath(t), "--idle", "300ms")
	if text, _, _ := p.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
		t.Fatalf("go_workspace:\n%s", text)
	}
	d := sh.waitList("daemon", func(l []daemonInfo) bool { return len(l) == 1 })[0]
	p.stdin.Close()
	<-p.exited
	if !waitDead(20*time.Second, d.PID, d.GoplsPID) {
		t.Fatalf("the daemon (%d, alive %v) or its gopls (%d, alive %v) still runs 20s after its last session ended with --idle 300ms",
			d.PID, processAlive(d.PID), d.GoplsPID, processAlive(d.GoplsPID))
	}
	if l := sh.list(); len(l) != 0 {
		t.Errorf("daemon list after the idle exit: %+v", l)
	}
	if _, err := os.Stat(filepath.Join(sh.dir, d.Key+".sock")); !os.IsNotExist(err) {
		t.Errorf("the idle daemon left its socket: %v", err)
	}
}

func TestShareDaemonExitsWhenGoplsCannotBeKeptAlive(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	// A gopls that starts once: every later start fails at once.
	dir := t.TempDir()
	script := filepath.Join(dir, "gopls")
	started := filepath.Join(dir, "started")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\nif [ -e %s ]; then exit 1; fi\n: > %s\nexec %s \"$@\"\n", started, started, goplsPath(t))), 0o755); err != nil {
		t.Fatal(err)
	}
	p := sh.session("--root", root, "--gopls", script)
	if text, _, _ := p.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
		t.Fatalf("go_workspace:\n%s", text)
	}
	d := sh.waitList("daemon", func(l []daemonInfo) bool { return len(l) == 1 })[0]
	if err := syscall.Kill(d.GoplsPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// gopls cannot be started again: the daemon goes.
	if !waitDead(30*time.Second, d.PID) {
		t.Fatalf("the daemon %d still runs 30s after its gopls could no longer start", d.PID)
	}
	// The session's next call finds no daemon that can start, and says so.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_workspace","arguments":{}}}`)
	m := p.recv()
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "cannot be reached") {
		t.Errorf("the call after the daemon went: %v", m)
	}
}

// waitDead waits until none of pids is a live process (a zombie counts as
// dead: they are not this test's children, so it has no wait to block
// on), at most for d, and reports whether they all died.
func waitDead(d time.Duration, pids ...int) bool {
	return poll(d, 10*time.Millisecond, func() bool { return !slices.ContainsFunc(pids, processAlive) })
}

// poll checks done every period until it holds, at most for d, and
// reports whether it held: for states of other processes, which send
// no signal to wait on.
func poll(d, period time.Duration, done func() bool) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for !done() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
