//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A goGate holds gopls's workspace loads up for as long as a test likes.
// gopls loads packages with go list; the gate puts a go command first on
// goplsmcp's PATH that, for go list only, waits for a shared lock on a
// file while the test holds it exclusively, then runs the real go. So
// gopls is real and its load really waits: "not loaded yet" lasts exactly
// until the test releases the gate, however fast or loaded the machine.
type goGate struct {
	t    *testing.T
	dir  string
	lock *os.File
}

func newGoGate(t *testing.T) *goGate {
	t.Helper()
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Fatal("these tests need flock(1), from util-linux")
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "lock")
	lock, err := os.Create(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = list ]; then %q -s %q true; fi\nexec %q \"$@\"\n", flock, lockPath, realGo)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &goGate{t: t, dir: dir, lock: lock}
	t.Cleanup(func() {
		g.release()
		lock.Close()
	})
	return g
}

// hold closes the gate: go list waits from now on.
func (g *goGate) hold() {
	g.t.Helper()
	if err := syscall.Flock(int(g.lock.Fd()), syscall.LOCK_EX); err != nil {
		g.t.Fatal(err)
	}
}

// release opens the gate: waiting go lists run, and later ones at once.
func (g *goGate) release() {
	g.t.Helper()
	if err := syscall.Flock(int(g.lock.Fd()), syscall.LOCK_UN); err != nil {
		g.t.Fatal(err)
	}
}

// command is goplsmcp with args, finding the gate's go first on PATH.
func (g *goGate) command(args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "PATH="+g.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// sidecar is goplsmcp serving HTTP with a token from a file, as in a
// container.
type sidecar struct {
	*proc
	t     *testing.T
	base  string // http://127.0.0.1:PORT
	token string
	root  string
	gopls int // the pid of the first gopls
}

const sidecarToken = "sidecar-token-0123456789abcdef"

func startSidecar(t *testing.T, gate *goGate) *sidecar {
	t.Helper()
	root := exampleRoot(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(sidecarToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startCmd(t, gate.command("--root", root, "--gopls", goplsPath(t), "--http", "127.0.0.1:0", "--token-file", tokenFile))
	pid := p.goplsPID()
	url := p.stderrMatch(`msg="serving MCP over HTTP".* url=(\S+)`)[0]
	return &sidecar{proc: p, t: t, base: strings.TrimSuffix(url, "/mcp"), token: sidecarToken, root: root, gopls: pid}
}

// get sends a GET (or another method) for a probe, with no token, and
// logs it as a transcript line.
func (s *sidecar) probe(method, path string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	dump, _ := httputil.DumpResponse(resp, true)
	s.checkReveals(string(dump))
	body, _ := io.ReadAll(resp.Body)
	s.t.Logf("$ curl -si -X %s %s  →  %s %q", method, path, resp.Status, body)
	return resp.StatusCode, string(body)
}

// checkReveals fails if an answer shows the token, the root or a version.
func (s *sidecar) checkReveals(answer string) {
	s.t.Helper()
	for _, secret := range []string{s.token, s.root, filepath.Base(s.root), "v0.23", "gopls", "goplsmcp", "devel", "go1."} {
		if strings.Contains(answer, secret) {
			s.t.Errorf("a probe's answer shows %q:\n%s", secret, answer)
		}
	}
}

// waitProbe polls path until it answers want, within a minute.
func (s *sidecar) waitProbe(path string, want int) {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	last := 0
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			s.t.Fatal(err)
		}
		resp.Body.Close()
		if last = resp.StatusCode; last == want {
			s.t.Logf("$ curl -si %s  →  %s (polled)", path, resp.Status)
			return
		}
		<-tick.C
	}
	s.t.Fatalf("GET %s answered %d for a minute, want %d", path, last, want)
}

// TestSidecarProbes runs the binary as a sidecar and probes it as an
// orchestrator would, without a token: /healthz is 200 throughout;
// /readyz is 503 until gopls has loaded the workspace, 200 then, 503 again
// from gopls's death until its replacement has loaded the workspace, and
// 200 after; other methods get 405; no answer shows the token, the root
// or a version.
func TestSidecarProbes(t *testing.T) {
	gate := newGoGate(t)
	gate.hold()
	s := startSidecar(t, gate)
	pid := s.gopls

	for _, tc := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/healthz", 200, "ok\n"},
		{"GET", "/readyz", 503, "not ready\n"},
		{"POST", "/healthz", 405, "method not allowed\n"},
		{"HEAD", "/readyz", 405, ""},
		{"DELETE", "/readyz", 405, "method not allowed\n"},
	} {
		if status, body := s.probe(tc.method, tc.path); status != tc.status || body != tc.body {
			t.Errorf("%s %s while gopls loads: %d %q, want %d %q", tc.method, tc.path, status, body, tc.status, tc.body)
		}
	}
	gate.release()
	s.waitProbe("/readyz", 200)
	if status, body := s.probe("GET", "/readyz"); status != 200 || body != "ok\n" {
		t.Errorf("GET /readyz once loaded: %d %q", status, body)
	}

	// The replacement of a killed gopls cannot load while the gate is
	// held, so the 503 lasts until the test releases it.
	gate.hold()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("$ kill -KILL %d   # gopls", pid)
	s.waitProbe("/readyz", 503)
	replacement := s.goplsPID()
	if status, _ := s.probe("GET", "/healthz"); status != 200 {
		t.Errorf("GET /healthz while gopls restarts: %d, want 200", status)
	}
	if status, body := s.probe("GET", "/readyz"); status != 503 || body != "not ready\n" {
		t.Errorf("GET /readyz while gopls restarts: %d %q, want 503", status, body)
	}
	gate.release()
	s.waitProbe("/readyz", 200)
	s.stop(replacement)
}

// post sends one JSON-RPC message to the MCP endpoint with the token and
// the session, and logs the exchange's first line.
func (s *sidecar) post(session, body string) *http.Response {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	var m struct{ Method string }
	json.Unmarshal([]byte(body), &m)
	extra := ""
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		extra = ", Retry-After: " + ra
	}
	s.t.Logf("$ curl -si -X POST /mcp -d '{%q...}'  →  %s (%s%s)", m.Method, resp.Status, resp.Header.Get("Content-Type"), extra)
	return resp
}

func (s *sidecar) initialize() string {
	s.t.Helper()
	resp := s.post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"drain","version":"0"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		s.t.Fatalf("initialize: %s, session %q", resp.Status, id)
	}
	resp = s.post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return id
}

// events reads an event stream's messages.
func events(t *testing.T, r io.Reader) <-chan map[string]any {
	ch := make(chan map[string]any, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Errorf("event data is not JSON: %q", data)
					return
				}
				ch <- m
			}
		}
	}()
	return ch
}

func nextMsg[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return v
	case <-time.After(time.Minute):
		t.Fatalf("%s: nothing within a minute", what)
	}
	var zero T
	return zero
}

// slowCall is a call that waits for gopls for real: go_workspace waits for
// the workspace to load, which the gate holds up. With a progress token,
// its first message is the progress report it sends before waiting, which
// proves the call in flight.
const slowCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_workspace","arguments":{},"_meta":{"progressToken":"load"}}}`

// TestSidecarDrainHTTP sends SIGTERM while a slow call is in flight over
// HTTP: the call is answered, new sessions and requests meanwhile get 503
// with Retry-After, and goplsmcp and its gopls are gone within the drain
// bound.
func TestSidecarDrainHTTP(t *testing.T) {
	gate := newGoGate(t)
	gate.hold()
	s := startSidecar(t, gate)
	pid := s.gopls
	session := s.initialize()

	resp := s.post(session, slowCall)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("the slow call's answer is %s, want an event stream", ct)
	}
	msgs := events(t, resp.Body)
	if m := nextMsg(t, "the slow call's progress", msgs); m["method"] != "notifications/progress" {
		t.Fatalf("first message of the slow call: %v, want its progress", m)
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	t.Logf("$ kill -TERM %d   # goplsmcp, with go_workspace in flight", s.cmd.Process.Pid)
	// The drain begins once goplsmcp has seen the signal; a request that
	// arrives before is answered as usual.
	for i := 0; ; i++ {
		resp := s.post(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 100+i))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			if resp.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			break
		}
		if resp.StatusCode != 200 || time.Since(start) > drainBound {
			t.Fatalf("tools/list after SIGTERM: %s, want 503 once draining", resp.Status)
		}
	}
	resp2 := s.post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"late","version":"0"}}}`)
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusServiceUnavailable || resp2.Header.Get("Retry-After") == "" {
		t.Errorf("a new session while draining: %s, Retry-After %q; want 503 with Retry-After", resp2.Status, resp2.Header.Get("Retry-After"))
	}
	if status, _ := s.probe("GET", "/readyz"); status != 503 {
		t.Errorf("GET /readyz while draining: %d, want 503", status)
	}
	gate.release()
	t.Log("(gate released: gopls finishes loading the workspace)")
	for {
		m := nextMsg(t, "the slow call's answer", msgs)
		if m["method"] == "notifications/progress" {
			continue
		}
		res, _ := m["result"].(map[string]any)
		if m["id"] != 2.0 || res == nil || res["isError"] == true {
			t.Fatalf("the call in flight at SIGTERM: %v, want its answer", m)
		}
		text, _ := res["content"].([]any)[0].(map[string]any)["text"].(string)
		first, _, _ := strings.Cut(text, "\n")
		t.Logf("   event: go_workspace answered after %s: %q ...", time.Since(start).Round(time.Millisecond), first)
		break
	}
	s.exitedWithin(start, pid)
}

// exitedWithin checks that goplsmcp exited with status 0 and its gopls is
// gone, within the drain bound of start.
func (p *proc) exitedWithin(start time.Time, goplsPID int) {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(time.Until(start.Add(drainBound))):
		p.t.Fatalf("goplsmcp still running %s after SIGTERM", drainBound)
	}
	if !waitGone(goplsPID, start.Add(drainBound)) {
		p.t.Errorf("gopls %d still exists %s after SIGTERM", goplsPID, drainBound)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		p.t.Errorf("goplsmcp exited with status %d after SIGTERM, want 0", code)
	}
	p.t.Logf("   goplsmcp exited (status 0) and gopls %d is gone %s after SIGTERM", goplsPID, time.Since(start).Round(time.Millisecond))
}

// TestSidecarDrainStdio is TestSidecarDrainHTTP over stdio: the call in
// flight at SIGTERM is answered, a new request meanwhile is refused as
// the server shutting down, and goplsmcp and gopls are gone within the
// drain bound.
func TestSidecarDrainStdio(t *testing.T) {
	gate := newGoGate(t)
	gate.hold()
	p := startCmd(t, gate.command("--root", exampleRoot(t), "--gopls", goplsPath(t)))
	pid := p.goplsPID()
	initialized(t, p)
	p.send(slowCall)
	if m := p.recv(); m["method"] != "notifications/progress" {
		t.Fatalf("first message of the slow call: %v, want its progress", m)
	}
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	t.Logf("$ kill -TERM %d   # goplsmcp over stdio, with go_workspace in flight", p.cmd.Process.Pid)
	var answer map[string]any
	for i := 0; ; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 100+i))
		m := p.recv()
		for m["method"] == "notifications/progress" {
			m = p.recv()
		}
		if e, ok := m["error"].(map[string]any); ok && e["code"] == -32000.0 {
			t.Logf("> tools/list  →  %v", e)
			break
		}
		if m["id"] != float64(100+i) || m["result"] == nil || time.Since(start) > drainBound {
			t.Fatalf("tools/list after SIGTERM: %v, want a refusal once draining", m)
		}
	}
	gate.release()
	for answer == nil {
		if m := p.recv(); m["method"] != "notifications/progress" {
			answer = m
		}
	}
	if res, _ := answer["result"].(map[string]any); answer["id"] != 2.0 || res == nil || res["isError"] == true {
		t.Fatalf("the call in flight at SIGTERM: %v, want its answer", answer)
	}
	t.Logf("< go_workspace answered after %s", time.Since(start).Round(time.Millisecond))
	p.exitedWithin(start, pid)
}
