package lspclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// testLogger sends the client's log to the test's log, shown on failure.
func testLogger(t *testing.T) *slog.Logger {
	t.Helper()
	return slog.New(slog.NewTextHandler(&testWriter{t: t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	t  *testing.T
	mu sync.Mutex
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// startWith starts a client with opts on the pinned gopls; Close runs at
// the end of the test.
func startWith(t *testing.T, opts Options) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts.Gopls = goplsPath(t)
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitFor waits until cond holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %s", what, d)
		}
		<-tick.C
	}
}

// stopProcess sends SIGSTOP to pid and waits until every thread of it has
// stopped: the signal takes effect only as each thread is scheduled.
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	if err := signalPID(pid, sigStop); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "gopls is stopped", func() bool {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Fatalf("cannot see whether gopls stopped: %v", err)
		}
		for _, task := range tasks {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
			if err != nil {
				return false
			}
			// The state follows the command name, which is in parentheses.
			_, rest, _ := strings.Cut(string(stat), ") ")
			if !strings.HasPrefix(rest, "T") {
				return false
			}
		}
		return true
	})
}

// reaped reports whether no process pid exists any more, not even as a
// zombie waiting for its parent.
func reaped(pid int) bool {
	return errors.Is(signalPID(pid, 0), syscall.ESRCH)
}

// overlay is broken/broken.go with its type error replaced by another, so
// that diagnostics tell which text gopls holds: the disk's or ours.
func overlay(t *testing.T, root string) (uri, disk, text string) {
	t.Helper()
	path := filepath.Join(root, "broken", "broken.go")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Replace(string(data), `H: "1"`, `H: true`, 1)
	if text == string(data) {
		t.Fatal("broken.go no longer has the type error this test replaces")
	}
	return FileURI(path), string(data), text
}

const overlayError = "cannot use true (untyped bool constant) as float64 value"

// messages joins the messages of diagnostics, for comparisons.
func messages(diags []protocol.Diagnostic) string {
	var ms []string
	for _, d := range diags {
		ms = append(ms, d.Message)
	}
	return strings.Join(ms, "\n")
}

// hoverSummary asks for hover on Summary in main.go and returns its text.
func hoverSummary(ctx context.Context, c *Client, root string) (string, error) {
	var h struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	err := c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": FileURI(filepath.Join(root, "main.go"))},
		"position":     map[string]any{"line": 12, "character": 22},
	}, &h)
	return h.Contents.Value, err
}

func TestRestartAfterKill(t *testing.T) {
	baseline := runtime.NumGoroutine()
	root := exampleRoot(t)
	var (
		progMu sync.Mutex
		ended  = map[string]int{}
	)
	c := startWith(t, Options{Root: root, Timeout: 20 * time.Second, OnProgress: func(p Progress) {
		if p.Done {
			progMu.Lock()
			ended[p.Title]++
			progMu.Unlock()
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// An open buffer that differs from the disk.
	uri, disk, text := overlay(t, root)
	if _, err := c.Sync(ctx, uri, text); err != nil {
		t.Fatal(err)
	}
	diags, err := c.DiagnoseFile(ctx, uri)
	if err != nil || !strings.Contains(messages(diags), overlayError) {
		t.Fatalf("diagnostics of the overlay before any kill = %q, %v; want %q", messages(diags), err, overlayError)
	}
	if err := c.DiagnoseWorkspace(ctx, uri); err != nil {
		t.Fatal(err)
	}

	// A request pending when gopls dies is retried on its replacement.
	// gopls is stopped first so that it cannot answer before the kill.
	old := c.PID()
	stopProcess(t, old)
	p := c.live()
	before := p.written.Load()
	type answer struct {
		text string
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		text, err := hoverSummary(ctx, c, root)
		answered <- answer{text, err}
	}()
	waitFor(t, 10*time.Second, "the hover request reaches gopls", func() bool { return p.written.Load() > before })
	killed := time.Now()
	if err := signalPID(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	if a.err != nil || !strings.Contains(a.text, "func report.Summary") {
		t.Fatalf("hover interrupted by the kill = %q, %v; want Summary's signature from the new gopls", a.text, a.err)
	}
	t.Logf("interrupted request answered %s after the kill", time.Since(killed).Round(time.Millisecond))

	h := c.Health()
	if h.PID == old || h.Restarts != 1 || h.State != "running" || !strings.Contains(h.LastExit, "killed") {
		t.Errorf("Health after one kill = %+v; want a new pid, 1 restart, running, killed", h)
	}
	waitFor(t, 5*time.Second, "the killed gopls is reaped", func() bool { return reaped(old) })

	// The new gopls holds the buffer, at the same version.
	if got, v, ok := c.Document(uri); !ok || got != text || v != 1 {
		t.Errorf("Document after restart = version %d, open %v, same text %v; want the overlay at version 1", v, ok, got == text)
	}
	diags, err = c.DiagnoseFile(ctx, uri)
	if err != nil || !strings.Contains(messages(diags), overlayError) {
		t.Errorf("diagnostics of the overlay after the restart = %q, %v; want %q", messages(diags), err, overlayError)
	}
	// Published diagnostics come from the new gopls alone, for the overlay.
	if err := c.DiagnoseWorkspace(ctx, uri); err != nil {
		t.Fatal(err)
	}
	pub := c.PublishedDiagnostics()
	if len(pub) != 1 || !strings.Contains(messages(pub[uri]), overlayError) {
		t.Errorf("published diagnostics after restart = %v; want the overlay's one error", pub)
	}
	if !c.Loaded() {
		t.Error("Loaded() = false after DiagnoseWorkspace on the new gopls")
	}
	if got := c.ActiveWork(); len(got) != 0 {
		t.Errorf("ActiveWork after the new gopls settled = %q", got)
	}

	// Closing the buffer lets the new gopls read the disk again.
	if _, err := c.CloseDocument(ctx, uri); err != nil {
		t.Fatal(err)
	}
	diags, err = c.DiagnoseFile(ctx, uri)
	if err != nil || strings.Contains(messages(diags), overlayError) || !strings.Contains(messages(diags), `"1" (untyped string constant)`) {
		t.Errorf("diagnostics after closing the overlay = %q, %v; want the disk's error", messages(diags), err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "broken", "broken.go")); string(got) != disk {
		t.Error("broken.go changed on disk")
	}

	last := c.PID()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Exited():
	default:
		t.Error("Exited() not closed after Close")
	}
	if !reaped(last) {
		t.Errorf("gopls %d still exists after Close", last)
	}
	if _, err := hoverSummary(ctx, c, root); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Close = %v, want ErrClosed", err)
	}
	waitFor(t, 5*time.Second, "goroutines back to the count before Start", func() bool {
		return runtime.NumGoroutine() <= baseline
	})
	progMu.Lock()
	t.Logf("progress ended: %v", ended)
	progMu.Unlock()
}

// TestHangIsDetected: gopls stopped (SIGSTOP) while a request waits is
// restarted, and the log says so with the evidence: no message, no CPU
// time over the window, no answer to the probe.
func TestHangIsDetected(t *testing.T) {
	root := exampleRoot(t)
	const timeout = 2 * time.Second
	logged := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(io.MultiWriter(&testWriter{t: t}, logged), &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := startWith(t, Options{Root: root, Timeout: timeout, Logger: logger})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := hoverSummary(ctx, c, root); err != nil {
		t.Fatal(err)
	}
	// Stopped after the load: during it, gopls is given the load timeout.
	waitFor(t, time.Minute, "the workspace to load", c.Loaded)
	old := c.PID()
	stopProcess(t, old)
	t.Cleanup(func() { signalPID(old, sigCont) })

	start := time.Now()
	text, err := hoverSummary(ctx, c, root)
	took := time.Since(start)
	var stuck *StuckError
	switch {
	case errors.As(err, &stuck):
		if !stuck.Restarted || filepath.Base(stuck.File) != "main.go" || !errors.Is(err, ErrTimeout) {
			t.Errorf("hover to a stopped gopls = %+v, want a restart named for main.go, and ErrTimeout", stuck)
		}
	case err == nil:
		// Another request saw the stall first and gopls was restarted
		// under this one, which was sent again to the new gopls.
		if !strings.Contains(text, "func report.Summary") {
			t.Errorf("hover sent again after the restart = %q", text)
		}
	default:
		t.Fatalf("hover to a stopped gopls = %v, want a *StuckError or an answer from its replacement", err)
	}
	// No sign of work for a window from the first look, a step in, seen
	// within a step of it, then the probe; and for an answer, a restart
	// and a small load.
	if bound := timeout + 2*timeout/stallSteps + probeDeadline(timeout) + 2*time.Second; took > bound {
		t.Errorf("hover to a stopped gopls ended after %s, want within %s", took, bound)
	}
	t.Logf("ended after %s: %v", took.Round(time.Millisecond), err)

	waitFor(t, 30*time.Second, "a new gopls replaces the stopped one", func() bool {
		h := c.Health()
		return h.PID != old && h.State == "running"
	})
	text, err = hoverSummary(ctx, c, root)
	if err != nil || !strings.Contains(text, "func report.Summary") {
		t.Fatalf("hover after the restart = %q, %v", text, err)
	}
	t.Logf("answering again %s after the stopped gopls missed its timeout", time.Since(start.Add(took)).Round(time.Millisecond))
	if h := c.Health(); !strings.Contains(h.LastExit, "stopped answering") {
		t.Errorf("Health().LastExit = %q, want it to say gopls stopped answering", h.LastExit)
	}
	restart := regexp.MustCompile(`msg="gopls stopped answering; killing and restarting it" pid=` + strconv.Itoa(old) + ` .* messages_in_window=0 cpu_ticks_in_window=[01] probe_answered=false`)
	if !restart.MatchString(logged.String()) {
		t.Errorf("no restart of gopls %d logged with its evidence (%s):\n%s", old, restart, logged.String())
	}
	waitFor(t, 5*time.Second, "the stopped gopls is reaped", func() bool { return reaped(old) })
}

// lockedBuffer is a log's bytes, written and read from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestProbe(t *testing.T) {
	root := exampleRoot(t)
	c := startWith(t, Options{Root: root})
	// Right after initialize, the workspace is usually still loading and
	// every queued request waits; the probe must not.
	p := c.live()
	loading := !c.Loaded()
	if !p.alive(5 * time.Second) {
		t.Fatal("a running gopls did not answer the probe")
	}
	t.Logf("probe answered while loading: %v", loading)
	stopProcess(t, p.pid)
	if p.alive(500 * time.Millisecond) {
		t.Error("a stopped gopls answered the probe")
	}
	if err := signalPID(p.pid, sigCont); err != nil {
		t.Fatal(err)
	}
	if !p.alive(5 * time.Second) {
		t.Error("a resumed gopls did not answer the probe")
	}
	if h := c.Health(); h.Restarts != 0 || h.PID != p.pid {
		t.Errorf("Health after probes = %+v; a probe alone must not restart gopls", h)
	}
}

func TestCrashLoop(t *testing.T) {
	root := exampleRoot(t)
	const window = 6 * time.Second
	c := startWith(t, Options{Root: root, Timeout: 10 * time.Second, CrashLimit: 3, CrashWindow: window})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Three deaths in quick succession: each new gopls is killed as soon
	// as it exists.
	pid := c.PID()
	for i := range 3 {
		if err := signalPID(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		if i == 2 {
			break
		}
		old := pid
		waitFor(t, 10*time.Second, "a new gopls is started", func() bool {
			pid = c.PID()
			return pid != old
		})
	}
	waitFor(t, 10*time.Second, "the client enters the crash loop", func() bool { return c.Health().State == "crash-loop" })

	start := time.Now()
	_, err := hoverSummary(ctx, c, root)
	if !errors.Is(err, ErrCrashLoop) || !strings.Contains(err.Error(), "starts it again in") {
		t.Errorf("request in a crash loop = %v; want ErrCrashLoop saying when gopls starts again", err)
	}
	if err := c.WaitLoaded(ctx); !errors.Is(err, ErrCrashLoop) {
		t.Errorf("WaitLoaded in a crash loop = %v; want ErrCrashLoop", err)
	}
	if _, err := c.Sync(ctx, FileURI(filepath.Join(root, "main.go")), "package main\n\nvar x int = \"s\"\n"); err != nil {
		t.Errorf("Sync in a crash loop = %v; the buffer should be kept for the next gopls", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("requests in a crash loop took %s to fail; want at once", took)
	}
	t.Logf("in the crash loop: %v", err)

	// Once the window has passed, gopls is started again.
	waitFor(t, window+30*time.Second, "gopls runs again after the crash window", func() bool { return c.Health().State == "running" })
	t.Logf("running again %s after the crash loop began", time.Since(start).Round(time.Millisecond))
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	// main.go is the buffer synced during the crash loop.
	diags, err := c.DiagnoseFile(ctx, FileURI(filepath.Join(root, "main.go")))
	if err != nil || !strings.Contains(messages(diags), `cannot use "s" (untyped string constant) as int value`) {
		t.Errorf("diagnostics of the buffer synced during the crash loop = %q, %v", messages(diags), err)
	}
}

func TestChildEnv(t *testing.T) {
	offline := []string{"GOPROXY=off", "GOTOOLCHAIN=local"}
	tests := []struct {
		name         string
		base, extra  []string
		allowNetwork bool
		want         []string
	}{
		{"offline by default, no -mod added", []string{"HOME=/h", "GOENV=off"}, nil, false,
			append([]string{"HOME=/h", "GOENV=off"}, offline...)},
		{"other GOFLAGS kept", []string{"GOFLAGS=-buildvcs=false"}, nil, false,
			append([]string{"GOFLAGS=-buildvcs=false"}, append(offline, "GOFLAGS=-buildvcs=false")...)},
		{"-mod=mod dropped", nil, []string{"GOFLAGS=-mod=mod -tags=x"}, false,
			append([]string{"GOFLAGS=-mod=mod -tags=x"}, append(offline, "GOFLAGS=-tags=x")...)},
		{"-mod=mod alone dropped, GOFLAGS still set", nil, []string{"GOFLAGS=-mod=mod"}, false,
			append([]string{"GOFLAGS=-mod=mod"}, append(offline, "GOFLAGS= ")...)},
		{"-mod=vendor kept", nil, []string{"GOFLAGS=-mod=vendor"}, false,
			append([]string{"GOFLAGS=-mod=vendor"}, append(offline, "GOFLAGS=-mod=vendor")...)},
		{"-mod=readonly kept", nil, []string{"GOFLAGS=-mod=readonly"}, false,
			append([]string{"GOFLAGS=-mod=readonly"}, append(offline, "GOFLAGS=-mod=readonly")...)},
		{"--env cannot lift it", []string{"GOENV=off"}, []string{"GOPROXY=https://proxy.example"}, false,
			append([]string{"GOENV=off", "GOPROXY=https://proxy.example"}, offline...)},
		{"network allowed", []string{"HOME=/h"}, []string{"GOPROXY=https://proxy.example"}, true,
			[]string{"HOME=/h", "GOPROXY=https://proxy.example"}},
		{"a toolchain named is kept", []string{"GOENV=off", "GOTOOLCHAIN=go1.27.3"}, nil, false,
			[]string{"GOENV=off", "GOTOOLCHAIN=go1.27.3", "GOPROXY=off", "GOTOOLCHAIN=go1.27.3"}},
		{"a toolchain named, as the least, is kept", []string{"GOENV=off"}, []string{"GOTOOLCHAIN=go1.27.3+auto"}, false,
			[]string{"GOENV=off", "GOTOOLCHAIN=go1.27.3+auto", "GOPROXY=off", "GOTOOLCHAIN=go1.27.3+auto"}},
		{"auto is local", []string{"GOENV=off", "GOTOOLCHAIN=auto"}, nil, false,
			append([]string{"GOENV=off", "GOTOOLCHAIN=auto"}, offline...)},
		{"path is local", []string{"GOENV=off", "GOTOOLCHAIN=path"}, nil, false,
			append([]string{"GOENV=off", "GOTOOLCHAIN=path"}, offline...)},
		{"no toolchain name is local", []string{"GOENV=off", "GOTOOLCHAIN=gofast"}, nil, false,
			append([]string{"GOENV=off", "GOTOOLCHAIN=gofast"}, offline...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := append([]string(nil), tt.base...)
			got := childEnv(base, tt.extra, tt.allowNetwork)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("childEnv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.base, base); diff != "" {
				t.Errorf("childEnv changed its base (-want +got):\n%s", diff)
			}
		})
	}
}

// A -mod=mod that `go env -w` wrote to the go env file is dropped as one
// in the environment is, and the file's other flags are kept.
func TestChildEnvGoEnvFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(file, []byte("GOFLAGS=-mod=mod -tags=y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := lookupEnv(childEnv([]string{"GOENV=" + file}, nil, false), "GOFLAGS")
	if got != "-tags=y" {
		t.Errorf("GOFLAGS = %q; want %q", got, "-tags=y")
	}
	got = lookupEnv(childEnv([]string{"GOENV=" + file, "GOFLAGS=-race"}, nil, false), "GOFLAGS")
	if got != "-race" {
		t.Errorf("GOFLAGS with the environment's = %q; want %q", got, "-race")
	}
	// A toolchain named there (go env -w GOTOOLCHAIN=...) is kept too.
	if err := os.WriteFile(file, []byte("GOTOOLCHAIN=go1.27.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := lookupEnv(childEnv([]string{"GOENV=" + file}, nil, false), "GOTOOLCHAIN"); got != "go1.27.3" {
		t.Errorf("GOTOOLCHAIN from the go env file = %q; want go1.27.3", got)
	}
}

// copyFixture copies testdata/NAME to a temporary directory and returns
// its symlink-free path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("../testdata", name))); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// environ returns the environment of process pid.
func environ(t *testing.T, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		t.Skipf("cannot read a process's environment here: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// TestOffline runs gopls on workspaces that only a download could satisfy:
// a module missing from the module cache, and a Go release newer than the
// local one. GOPROXY points at a local server that counts what is asked of
// it. Offline, gopls must diagnose the problem without asking; with the
// network allowed, it asks — which shows the workspaces do call for a
// download.
func TestOffline(t *testing.T) {
	tests := []struct {
		fixture string
		env     []string
		want    string // in a published diagnostic
	}{
		{"offline/missingdep", nil, "could not import example.invalid/nothere"},
		{"offline/newgo", []string{"GOTOOLCHAIN=auto"}, "GOTOOLCHAIN=local"},
	}
	for _, tt := range tests {
		// The environment given as gopls's env setting (what --env
		// sets) must be as powerless as the process's.
		// Through a shared daemon, whose own environment is online, what
		// counts is the session's environment, the forwarder's.
		for _, via := range []string{"environment", "setting", "daemon"} {
			for _, allowNetwork := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/network=%v", tt.fixture, via, allowNetwork), func(t *testing.T) {
					var asked atomic.Int64
					proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						asked.Add(1)
						http.NotFound(w, r)
					}))
					defer proxy.Close()
					env := append([]string{
						"GOPROXY=" + proxy.URL, "GOSUMDB=off",
						"GOMODCACHE=" + t.TempDir(), "GOFLAGS=-modcacherw",
					}, tt.env...)

					root := copyFixture(t, tt.fixture)
					opts := Options{Root: root, Timeout: 30 * time.Second, Env: env, AllowNetwork: allowNetwork}
					if via == "setting" {
						setting := map[string]any{}
						for _, kv := range env {
							k, v, _ := strings.Cut(kv, "=")
							setting[k] = v
						}
						opts.Env, opts.Settings = nil, map[string]any{"env": setting}
					}
					if via == "daemon" {
						sock := filepath.Join(t.TempDir(), "gopls.sock")
						daemon := exec.Command(goplsPath(t), "serve", "-listen=unix;"+sock)
						daemon.Env = append(os.Environ(), env...)
						if err := daemon.Start(); err != nil {
							t.Fatal(err)
						}
						t.Cleanup(func() {
							daemon.Process.Kill()
							daemon.Wait()
						})
						// On a busy machine the forwarder may dial before
						// the daemon listens.
						waitFor(t, time.Minute, "the gopls daemon listens", func() bool {
							_, err := os.Stat(sock)
							return err == nil
						})
						opts.Remote = "unix;" + sock
					}
					c := startWith(t, opts)
					genv := environ(t, c.PID())
					offline := lookupEnv(genv, "GOPROXY") == "off" && lookupEnv(genv, "GOTOOLCHAIN") == "local" &&
						!strings.Contains(lookupEnv(genv, "GOFLAGS"), "-mod=mod")
					if offline == allowNetwork {
						t.Errorf("gopls's environment has GOPROXY=%q GOTOOLCHAIN=%q GOFLAGS=%q; want offline settings: %v",
							lookupEnv(genv, "GOPROXY"), lookupEnv(genv, "GOTOOLCHAIN"), lookupEnv(genv, "GOFLAGS"), !allowNetwork)
					}

					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					start := time.Now()
					err := c.DiagnoseWorkspace(ctx, FileURI(filepath.Join(root, "main.go")))
					if err != nil && !allowNetwork {
						t.Fatal(err)
					}
					// Online, the workspace may be beyond gopls (it cannot
					// fetch the toolchain); only the asking matters.
					var all []string
					for uri, diags := range c.PublishedDiagnostics() {
						all = append(all, filepath.Base(uri)+": "+messages(diags))
					}
					if !allowNetwork && !strings.Contains(strings.Join(all, "\n"), tt.want) {
						t.Errorf("diagnostics = %q; want one containing %q", all, tt.want)
					}
					if allowNetwork {
						waitFor(t, 30*time.Second, "gopls's go command asks the module proxy", func() bool { return asked.Load() > 0 })
					} else if n := asked.Load(); n > 0 {
						// The load is over: the go command has run.
						t.Errorf("offline, the module proxy was asked %d times", n)
					}
					t.Logf("diagnosed in %s, %d proxy requests: %q", time.Since(start).Round(time.Millisecond), asked.Load(), all)
				})
			}
		}
	}
}

func TestOfflineSettings(t *testing.T) {
	offline := func(goflags string, more ...string) map[string]any {
		env := map[string]any{"GOPROXY": "off"}
		if goflags != "" {
			env["GOFLAGS"] = goflags
		}
		for i := 0; i < len(more); i += 2 {
			env[more[i]] = more[i+1]
		}
		return map[string]any{"env": env}
	}
	tests := []struct {
		name     string
		settings map[string]any
		goflags  string // the environment's
		want     map[string]any
	}{
		{"no settings", nil, "", offline("")},
		{"the environment's GOFLAGS", nil, "-buildvcs=false", offline("-buildvcs=false")},
		{"the environment's -mod=vendor", nil, "-mod=vendor", offline("-mod=vendor")},
		{"env cannot lift it", map[string]any{"env": map[string]any{
			"GOPROXY": "https://proxy.example", "GOTOOLCHAIN": "auto", "GOFLAGS": "-mod=mod -tags=x", "GOPRIVATE": "example.com",
		}}, "-buildvcs=false", offline("-tags=x", "GOPRIVATE", "example.com", "GOTOOLCHAIN", "local")},
		{"a toolchain named is kept", map[string]any{"env": map[string]any{"GOTOOLCHAIN": "go1.27.3"}}, "",
			offline("", "GOTOOLCHAIN", "go1.27.3")},
		{"env of strings", map[string]any{"env": map[string]string{"GOPROXY": "direct", "CGO_ENABLED": "0"}}, "",
			offline("", "CGO_ENABLED", "0")},
		{"-mod=mod dropped from buildFlags", map[string]any{"buildFlags": []any{"-tags=integration", "-mod=mod", "-mod", "mod", "--mod=mod", "-race"}}, "",
			map[string]any{"env": offline("")["env"], "buildFlags": []any{"-tags=integration", "-race"}}},
		{"buildFlags of strings", map[string]any{"buildFlags": []string{"-mod=mod"}, "staticcheck": true}, "",
			map[string]any{"env": offline("")["env"], "buildFlags": []any{}, "staticcheck": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprint(tt.settings)
			got := offlineSettings(tt.settings, tt.goflags)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("offlineSettings (-want +got):\n%s", diff)
			}
			if after := fmt.Sprint(tt.settings); after != before {
				t.Errorf("offlineSettings changed its input: %s, was %s", after, before)
			}
		})
	}
}
