package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestCancelReachesGopls checks cancellation end to end (docs/protocol.md):
// notifications/cancelled for a tool call whose gopls request is in flight
// makes goplsmcp send $/cancelRequest to gopls (as gopls's own RPC trace
// shows), and no response is sent for the cancelled id.
//
// To hold gopls's request in flight, gopls is given a go command that
// waits at a gate (a FIFO) before running the real one: gopls cannot
// finish loading, so every request waits behind the load. gopls writes its
// RPC trace into another FIFO, which the test reads as it goes to learn
// when the request has reached gopls, and that the cancellation followed.
func TestCancelReachesGopls(t *testing.T) {
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t)
	gate := filepath.Join(dir, "gate")
	if err := mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(dir, "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat '" + gate + "' >/dev/null\nexec '" + realGo + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(binDir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var releaseOnce sync.Once
	release := func() {
		releaseOnce.Do(func() {
			// Opening the FIFO read-write never blocks and lets every
			// waiting reader in; a plain file then takes its place for
			// later readers, and closing ends the waiting ones.
			f, err := os.OpenFile(gate, os.O_RDWR, 0)
			if err != nil {
				t.Error(err)
				return
			}
			open := filepath.Join(dir, "open")
			if err := os.WriteFile(open, nil, 0o600); err != nil {
				t.Error(err)
			}
			if err := os.Rename(open, gate); err != nil {
				t.Error(err)
			}
			f.Close()
		})
	}

	root := exampleRoot(t)
	trace := filepath.Join(dir, "trace")
	if err := mkfifo(trace, 0o600); err != nil {
		t.Fatal(err)
	}
	sawRequest := make(chan struct{})
	sawCancel := make(chan struct{})
	traced := make(chan struct{})
	go func() {
		defer close(traced)
		f, err := os.Open(trace) // waits for gopls to open it
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var once1, once2 sync.Once
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, "request 'textDocument/diagnostic") {
				once1.Do(func() { close(sawRequest) })
			}
			if strings.Contains(line, "'$/cancelRequest'") {
				once2.Do(func() { close(sawCancel) })
			}
		}
	}()
	gopls := testGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := lspclient.Start(ctx, lspclient.Options{
		Gopls: gopls, Root: root,
		Args: []string{"-rpc.trace", "-logfile=" + trace},
		Env:  []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	br, err := bridge.New(bridge.Config{Root: root, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer("goplsmcp", "test", nil)
	if err := br.Register(srv); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	// Cleanups run last first: the gate opens before anything waits on
	// gopls.
	t.Cleanup(release)
	st := &notes{}
	c := mcp.NewClient(outR, inW)
	progress := make(chan string, 10)
	c.OnNotification = func(method string, params json.RawMessage) {
		st.add(method, params)
		if method == "notifications/progress" {
			var p struct{ Message string }
			_ = json.Unmarshal(params, &p)
			progress <- p.Message
		}
	}
	if _, err := c.Initialize(ctx, "2025-11-25"); err != nil {
		t.Fatal(err)
	}

	// The call's answer is never read: the id is cancelled. The file's
	// unsaved text is pulled from gopls (textDocument/diagnostic) at
	// once, while the workspace's diagnosis waits for the load.
	text, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	callDone := make(chan error, 1)
	go func() {
		_, err := c.CallRaw(ctx, "tools/call", map[string]any{
			"name": "go_diagnostics", "arguments": map[string]any{"file": "main.go", "text": string(text) + "\n// unsaved\n"},
			"_meta": map[string]any{"progressToken": "t"},
		})
		callDone <- err
	}()
	// The first progress says the handler runs and gopls is still loading.
	select {
	case msg := <-progress:
		if msg != "gopls is loading the workspace" {
			t.Fatalf("first progress %q", msg)
		}
	case <-ctx.Done():
		t.Fatal("no progress from the call")
	}
	waitClosed(t, sawRequest, "the call's textDocument/diagnostic to reach gopls")
	// The client numbers its requests; the call is the second, after
	// initialize.
	if err := c.Notify("notifications/cancelled", map[string]any{"requestId": 2, "reason": "test"}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, sawCancel, "$/cancelRequest in gopls's trace")
	release()
	if err := c.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Errorf("serving: %v", err)
	}
	// The session has ended having answered everything it was going to.
	if err := <-callDone; err == nil || !strings.Contains(err.Error(), "server closed the connection") {
		t.Errorf("the cancelled call got %v, want no answer before the session ended", err)
	}
	client.Close()
	<-traced
}

// waitClosed waits up to 30 s for ch to be closed.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
