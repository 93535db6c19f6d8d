package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// idlePause is how long a client thinks between two calls in these tests:
// twice the idle time after which Codex's worker threads end.
const idlePause = 20 * time.Second

// TestSessionOutlivesSpawningThread starts goplsmcp as Codex does: from a
// thread of the parent that ends once the session is set up, while the
// parent goes on using it. Linux's parent-death signal fires at the end
// of that thread, not of the parent; a session must live as long as its
// stdin, through the thread's end and the pause after.
func TestSessionOutlivesSpawningThread(t *testing.T) {
	t.Parallel()
	root := exampleRoot(t)
	cmd := exec.Command(binary, "--root", root, "--gopls", goplsPath(t))
	release := make(chan struct{})
	var tid int
	p := startCmdWith(t, cmd, func(cmd *exec.Cmd) (err error) {
		tid, err = onThread(cmd.Start, release)
		return err
	})
	initialized(t, p)
	if text, _, isErr := p.call(2, "go_workspace", `{}`); isErr {
		t.Fatalf("go_workspace before the pause: %s", text)
	}

	close(release)
	task := fmt.Sprintf("/proc/self/task/%d", tid)
	waitFor(t, "the spawning thread to end", 30*time.Second, func() bool {
		_, err := os.Stat(task)
		return errors.Is(err, fs.ErrNotExist)
	})
	select {
	case <-p.exited:
		t.Fatalf("goplsmcp ended after the thread that started it did")
	case <-time.After(idlePause):
	}
	text, _, isErr := p.call(3, "go_search", `{"query":"Shape"}`)
	if isErr || !strings.Contains(text, "Shape") {
		t.Fatalf("go_search %s after the spawning thread ended: %s", idlePause, text)
	}
}

// TestHTTPOutlivesItsShell starts goplsmcp --http the way a user detaches
// a server by hand, `setsid nohup goplsmcp --http … &` from a shell that
// then exits; the server must keep serving after the shell is gone, and
// after a hangup, until it is told to stop.
func TestHTTPOutlivesItsShell(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid here")
	}
	root := exampleRoot(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("lifetime-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The shell outlives the start, as a user's does: it exits once the
	// server says it serves (or after a minute).
	script := fmt.Sprintf(`setsid nohup %q --root %q --gopls %q --http 127.0.0.1:0 --token-file %q </dev/null >%q 2>&1 &
echo $!
i=0; while [ $i -lt 600 ] && ! grep -q 'serving MCP over HTTP' %q; do sleep 0.1; i=$((i+1)); done`,
		binary, root, goplsPath(t), tokenFile, log, log)
	sh := exec.Command("sh", "-c", script)
	sh.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	out, err := sh.Output() // returns once the shell has exited
	if err != nil {
		t.Fatalf("the shell: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if ended(pid) {
		data, _ := os.ReadFile(log)
		t.Fatalf("goplsmcp --http ended with the shell that started it:\n%s", data)
	}
	if err != nil {
		t.Fatalf("the shell printed %q, not a PID", out)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		if !waitFor(nil, "", drainBound, func() bool { return ended(pid) }) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("goplsmcp --http %d still running after SIGTERM", pid)
		}
	})

	var url string
	re := regexp.MustCompile(`msg="serving MCP over HTTP".* url=(\S+)`)
	waitFor(t, "goplsmcp --http to serve", time.Minute, func() bool {
		data, _ := os.ReadFile(log)
		if m := re.FindSubmatch(data); m != nil {
			url = string(m[1])
			return true
		}
		if ended(pid) {
			t.Fatalf("goplsmcp --http ended when the shell that started it did:\n%s", data)
		}
		return false
	})
	ask := func(when string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"lifetime","version":"0"}}}`))
		req.Header.Set("Authorization", "Bearer lifetime-token-0123456789")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			data, _ := os.ReadFile(log)
			t.Fatalf("goplsmcp --http %s: %v\n%s", when, err, data)
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(body.String(), `"protocolVersion"`) {
			t.Fatalf("initialize %s: %s %s", when, resp.Status, body.String())
		}
	}
	ask("after its shell exited")
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// A hangup that stopped it would end it within the drain bound.
	if waitFor(nil, "", drainBound, func() bool { return ended(pid) }) {
		data, _ := os.ReadFile(log)
		t.Fatalf("goplsmcp --http ended on SIGHUP:\n%s", data)
	}
	ask("after a hangup")
}

// ended reports whether process pid has ended: gone, or a zombie nobody
// has reaped yet (a detached process's new parent may never reap it).
func ended(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(data, ')'); i >= 0 && i+2 < len(data) {
		return data[i+2] == 'Z'
	}
	return false
}

// waitFor polls cond until it holds, for at most bound. With t, a
// condition that never holds fails the test naming what; without, it
// reports whether it held.
func waitFor(t *testing.T, what string, bound time.Duration, cond func() bool) bool {
	if t != nil {
		t.Helper()
	}
	deadline := time.Now().Add(bound)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			if t != nil {
				t.Fatalf("waited %s for %s", bound, what)
			}
			return false
		}
		<-tick.C
	}
	return true
}

// onThread runs fn on a goroutine locked to a thread of its own, which
// ends when end is closed, and returns the thread's id. Go ends a thread
// whose locked goroutine returns, except the main thread: a goroutine
// that lands there holds it until another thread is found.
func onThread(fn func() error, end <-chan struct{}) (tid int, err error) {
	type result struct {
		tid  int
		main bool
		err  error
	}
	var holds []chan struct{}
	defer func() {
		for _, h := range holds {
			close(h)
		}
	}()
	for range 100 {
		res := make(chan result, 1)
		hold := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			id := unix.Gettid()
			if id == unix.Getpid() {
				res <- result{main: true}
				<-hold
				runtime.UnlockOSThread()
				return
			}
			res <- result{tid: id, err: fn()}
			<-end // never unlocked: the thread ends with this goroutine
		}()
		r := <-res
		if !r.main {
			return r.tid, r.err
		}
		holds = append(holds, hold)
	}
	return 0, errors.New("found no thread but the main one")
}
