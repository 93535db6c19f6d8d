package lspclient

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// editorPriorityCase runs an editor's hover (or, command, a
// workspace/executeCommand) while gopls is stopped, so that it stays in
// flight, and an agent's request (a call of the client's own) beside it;
// it returns the two answers' channels.
func editorPriorityCase(t *testing.T, hold time.Duration, command bool) (c *Client, pid int, editorDone, agentDone chan error) {
	t.Helper()
	root := exampleRoot(t)
	c = startWith(t, Options{Root: root, Timeout: time.Minute})
	c.prio.mu.Lock()
	c.prio.hold = hold
	c.prio.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	if _, err := hoverSummary(ctx, c, root); err != nil {
		t.Fatal(err)
	}
	ed := editorOnPipe(t, ctx, c)
	pid = c.PID()
	stopProcess(t, pid)
	t.Cleanup(func() { signalPID(pid, sigCont) })

	editorDone, agentDone = make(chan error, 1), make(chan error, 1)
	go func() {
		var res json.RawMessage
		if command {
			_, err := ed.Call(ctx, "workspace/executeCommand", map[string]any{"command": "gopls.mem_stats", "arguments": []any{}}, &res)
			if err == nil && !strings.Contains(string(res), "HeapInUse") {
				t.Errorf("the editor's command: %s", res)
			}
			editorDone <- err
			return
		}
		_, err := ed.Call(ctx, "textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": FileURI(filepath.Join(root, "main.go"))},
			"position":     map[string]any{"line": 12, "character": 22},
		}, &res)
		if err == nil && !strings.Contains(string(res), "Summary") {
			t.Errorf("the editor's hover: %s", res)
		}
		editorDone <- err
	}()
	waitFor(t, 10*time.Second, "the editor's request in flight", func() bool {
		if command {
			c.editors.mu.Lock()
			defer c.editors.mu.Unlock()
			for _, e := range c.editors.list {
				e.mu.Lock()
				n := e.commands
				e.mu.Unlock()
				if n == 1 {
					return true
				}
			}
			return false
		}
		c.prio.mu.Lock()
		defer c.prio.mu.Unlock()
		return c.prio.editing == 1
	})
	go func() {
		var syms []json.RawMessage
		err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{
			"textDocument": map[string]any{"uri": FileURI(filepath.Join(root, "main.go"))},
		}, &syms)
		if err == nil && len(syms) == 0 {
			t.Errorf("the agent's request: no symbols")
		}
		agentDone <- err
	}()
	return c, pid, editorDone, agentDone
}

func (p *priority) counts() (held, capped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held, p.capped
}

// TestAgentWaitsForEditor: an agent's request made while an editor's is
// in flight waits, unsent, until the editor's has been answered.
func TestAgentWaitsForEditor(t *testing.T) {
	// A hold longer than the test: only the editor's answer releases the
	// agent.
	c, pid, editorDone, agentDone := editorPriorityCase(t, 10*time.Minute, false)
	waitFor(t, 10*time.Second, "the agent's request held", func() bool { held, _ := c.prio.counts(); return held == 1 })
	if err := signalPID(pid, sigCont); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	select {
	case err := <-editorDone:
		if err != nil {
			t.Fatalf("the editor's hover: %v", err)
		}
	case err := <-agentDone:
		t.Fatalf("the agent was answered (%v) before the editor", err)
	case <-deadline:
		t.Fatal("no answer for the editor in 30s")
	}
	select {
	case err := <-agentDone:
		if err != nil {
			t.Fatalf("the agent's request: %v", err)
		}
	case <-deadline:
		t.Fatal("the agent was not released in 30s after the editor's answer")
	}
	if held, capped := c.prio.counts(); held != 0 || capped != 0 {
		t.Errorf("held %d, capped %d after both answers; want 0, 0", held, capped)
	}
}

// TestAgentWaitIsBounded: an editor that keeps gopls busy delays an
// agent's request by the hold at most; the request is then sent.
func TestAgentWaitIsBounded(t *testing.T) {
	c, pid, editorDone, agentDone := editorPriorityCase(t, 50*time.Millisecond, false)
	// Released by the cap while the editor's request is still in
	// flight (gopls is stopped: neither can be answered yet).
	waitFor(t, 10*time.Second, "the agent's request sent after the hold", func() bool {
		held, capped := c.prio.counts()
		return held == 0 && capped == 1
	})
	c.prio.mu.Lock()
	editing := c.prio.editing
	c.prio.mu.Unlock()
	if editing != 1 {
		t.Fatalf("%d editor requests in flight when the agent's was sent, want 1", editing)
	}
	if err := signalPID(pid, sigCont); err != nil {
		t.Fatal(err)
	}
	awaitAnswers(t, editorDone, agentDone)
}

// TestEditorCommandHoldsNoAgent: an editor's command (a job that may run
// for minutes) in flight does not hold an agent's request back.
func TestEditorCommandHoldsNoAgent(t *testing.T) {
	c, pid, editorDone, agentDone := editorPriorityCase(t, 10*time.Minute, true)
	// Sent to gopls (which is stopped) without waiting: its flight exists.
	waitFor(t, 10*time.Second, "the agent's request sent to gopls", func() bool {
		return len(c.flights.waiting("textDocument/documentSymbol")) == 1
	})
	if held, capped := c.prio.counts(); held != 0 || capped != 0 {
		t.Errorf("held %d, capped %d while the editor's command runs; want 0, 0", held, capped)
	}
	if err := signalPID(pid, sigCont); err != nil {
		t.Fatal(err)
	}
	awaitAnswers(t, editorDone, agentDone)
}

// awaitAnswers waits for the editor's and the agent's requests of an
// editorPriorityCase to be answered, each without error.
func awaitAnswers(t *testing.T, editorDone, agentDone chan error) {
	t.Helper()
	for name, ch := range map[string]chan error{"editor": editorDone, "agent": agentDone} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("the %s's request: %v", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer for the %s in 30s", name)
		}
	}
}
