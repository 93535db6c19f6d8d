package lspclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestGeneration checks what moves the modification generation: requests
// do not, nor does opening or closing a file with the text a call just
// read from disk; opening, changing and closing documents with other text
// do, and so do files changed on disk and a new gopls.
func TestGeneration(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	<-c.watch.ready
	main := filepath.Join(root, "main.go")
	data, _ := os.ReadFile(main)
	uri := FileURI(main)
	report := filepath.Join(root, "report", "report.go")
	reportData, _ := os.ReadFile(report)
	reportURI := FileURI(report)

	steps := []struct {
		what  string
		do    func() error
		moves bool
	}{
		{"a request", func() error { return c.Call(ctx, "workspace/symbol", map[string]any{"query": "x"}, nil) }, false},
		{"opening a document", func() error { _, err := c.Sync(ctx, uri, string(data)); return err }, true},
		{"syncing the same text", func() error { _, err := c.Sync(ctx, uri, string(data)); return err }, false},
		{"changing it", func() error { _, err := c.Sync(ctx, uri, string(data)+"\n// more\n"); return err }, true},
		{"closing it", func() error { _, err := c.CloseDocument(ctx, uri); return err }, true},
		// A call's read of a file is opened when the call lets go, and
		// closed later: gopls sees the same text either way.
		{"a call's read of a file, opened as it lets go", func() error {
			l, err := c.HoldDisk(ctx, reportURI, string(reportData))
			if err != nil {
				return err
			}
			l.Release()
			c.docs.mu.Lock()
			doc := c.docs.open[reportURI]
			c.docs.mu.Unlock()
			if doc == nil || !doc.sent {
				return errors.New("the file read was not opened when its call let go")
			}
			return nil
		}, false},
		{"closing that file", func() error { _, err := c.CloseDocument(ctx, reportURI); return err }, false},
		{"the same file held with the session's text", func() error {
			l, err := c.Hold(ctx, reportURI, string(reportData)+"\n// unsaved\n", true)
			if err != nil {
				return err
			}
			l.Release()
			return nil
		}, true},
		{"closing that buffer", func() error { _, err := c.CloseDocument(ctx, reportURI); return err }, true},
		{"a full diagnosis", func() error { return c.DiagnoseWorkspace(ctx, uri) }, false},
		{"a command", func() error { return c.ExecuteCommand(ctx, "gopls.views", nil, nil) }, false},
		{"restarting gopls", func() error { return c.killAndWait(ctx) }, true},
	}
	if runtime.GOOS == "linux" {
		steps = append(steps, struct {
			what  string
			do    func() error
			moves bool
		}{"a file changed on disk", func() error {
			return os.WriteFile(filepath.Join(root, "shapes", "shapes.go"), append(data, "\n// x\n"...), 0o644)
		}, true})
	}
	for _, s := range steps {
		before := c.Generation()
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		if moved := c.Generation() != before; moved != s.moves {
			t.Errorf("%s: generation moved %v, want %v", s.what, moved, s.moves)
		}
	}
}

// killAndWait kills gopls and waits for its replacement to answer.
func (c *Client) killAndWait(ctx context.Context) error {
	pid := c.PID()
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
	for {
		if err := c.Call(ctx, "workspace/symbol", map[string]any{"query": "x"}, nil); err == nil && c.PID() != pid {
			return c.WaitLoaded(ctx)
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// TestDiagnoseFilesAgainAfterChange checks that a full diagnosis is asked
// for again once something changed, and that its published diagnostics
// follow the change; and that without a change the last one stands.
func TestDiagnoseFilesAgainAfterChange(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	broken := filepath.Join(root, "broken", "broken.go")
	data, _ := os.ReadFile(broken)
	uri := FileURI(broken)
	count := func() int {
		t.Helper()
		diags, err := c.WorkspaceDiagnostics(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		return len(diags[uri])
	}
	ctx2, trace := WithTrace(ctx)
	if n := count(); n != 1 {
		t.Fatalf("diagnostics of broken.go = %d, want 1", n)
	}
	if err := c.DiagnoseWorkspace(ctx2, uri); err != nil {
		t.Fatal(err)
	}
	if reqs := trace.Requests(); len(reqs) != 0 {
		t.Errorf("a second full diagnosis with nothing changed sent %v; want nothing", reqs)
	}
	fixed := strings.Replace(string(data), `H: "1"`, `H: 1`, 1)
	if _, err := c.Sync(ctx, uri, fixed); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("diagnostics of broken.go after fixing it = %d, want 0", n)
	}
	if _, err := c.Sync(ctx, uri, string(data)); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Errorf("diagnostics of broken.go after breaking it again = %d, want 1", n)
	}
}
