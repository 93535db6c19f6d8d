package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlowCallHeardFrom holds gopls still (SIGSTOP) while a call with a
// progress token waits for it, for less than --timeout: the call must be
// answered once gopls runs again, not failed, and the client must hear
// from it at least every 10 s meanwhile, as clients that reset their
// timeout on progress need.
func TestSlowCallHeardFrom(t *testing.T) {
	t.Parallel()
	p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t), "--timeout", "2m")
	initialized(t, p)
	gopls := p.goplsPID()
	if text, _, isErr := p.call(2, "go_describe", `{"file":"shapes/shapes.go","symbol":"Shape"}`); isErr {
		t.Fatalf("go_describe: %s", text)
	}
	if err := syscall.Kill(gopls, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(gopls, syscall.SIGCONT) })

	const held = 12 * time.Second
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"go_symbol_references","arguments":{"file":"shapes/shapes.go","symbol":"Shape"},"_meta":{"progressToken":"slow"}}}`)
	start := time.Now()
	last := start
	resumed := time.AfterFunc(held, func() { syscall.Kill(gopls, syscall.SIGCONT) })
	defer resumed.Stop()
	heard := 0
	for {
		var m map[string]any
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatal("goplsmcp's stdout ended")
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
		case <-time.After(time.Minute):
			t.Fatal("no line from goplsmcp for a minute")
		}
		now := time.Now()
		if m["method"] == "notifications/progress" {
			if gap := now.Sub(last); gap > 10*time.Second {
				t.Errorf("%s without progress while the call waited", gap.Round(time.Millisecond))
			}
			last = now
			heard++
			continue
		}
		if m["id"] != float64(3) {
			continue
		}
		res, _ := m["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("the call gopls was slow to answer failed after %s: %v", now.Sub(start).Round(time.Millisecond), m)
		}
		text := res["content"].([]any)[0].(map[string]any)["text"].(string)
		if !strings.Contains(text, "shapes.go") {
			t.Errorf("references: %s", text)
		}
		if took := now.Sub(start); took < held {
			t.Errorf("answered after %s, before gopls ran again (%s)", took, held)
		}
		break
	}
	if heard < 1 {
		t.Errorf("heard %d progress notifications during a %s wait", heard, held)
	}
}
