//go:build unix

package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// slowGoList puts first on gopls's PATH a go command whose go list takes
// delay longer than the real one's: a workspace load as slow as a large
// repository's with an empty cache.
func slowGoList(t *testing.T, delay time.Duration) []string {
	t.Helper()
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t)
	script := "#!/bin/sh\nif [ \"$1\" = list ]; then sleep " + strings.TrimSuffix(delay.String(), "s") + "; fi\nexec " + realGo + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// TestFirstCallWaitsForLoad: a call made while gopls loads a workspace
// that takes longer than --timeout waits for the load, reporting it as
// progress, and answers; the load has its own bound and its own sentence.
func TestFirstCallWaitsForLoad(t *testing.T) {
	const timeout = time.Second
	delay := 2 * time.Second // each go list: longer than the timeout
	refs := map[string]any{"name": "go_symbol_references", "arguments": map[string]any{"file": "shapes/shapes.go", "symbol": "Rect"},
		"_meta": map[string]any{"progressToken": "load"}}

	t.Run("answers after the load", func(t *testing.T) {
		st := startStackOf(t, exampleRoot(t), stackConfig{lsp: lspclient.Options{
			Env: slowGoList(t, delay), Timeout: timeout, LoadTimeout: time.Minute,
		}})
		ctx := testCtx(t)
		began := time.Now()
		var res mcp.ToolResultJSON
		if err := st.client.Call(ctx, "tools/call", refs, &res); err != nil || res.IsError {
			t.Fatalf("go_symbol_references during the load: %v %s", err, res.Text())
		}
		took := time.Since(began)
		if took < delay {
			t.Fatalf("answered in %s: the load was not slower than the go list delay %s, so this tests nothing", took, delay)
		}
		if !strings.Contains(res.Text(), "main.go") {
			t.Errorf("references of Rect name no use in main.go:\n%s", res.Text())
		}
		var msgs []string
		for _, n := range st.notes.snapshot() {
			if n.method == "notifications/progress" {
				msgs = append(msgs, n.params["message"].(string))
			}
		}
		if !slices.Contains(msgs, "gopls is loading the workspace") {
			t.Errorf("progress messages %q: want one saying gopls is loading the workspace", msgs)
		}
		t.Logf("answered in %s with --timeout %s; progress: %q", took.Round(time.Millisecond), timeout, msgs)
	})

	t.Run("load timeout", func(t *testing.T) {
		st := startStackOf(t, exampleRoot(t), stackConfig{lsp: lspclient.Options{
			Env: slowGoList(t, delay), Timeout: time.Minute, LoadTimeout: timeout,
		}})
		pid := st.lsp.PID()
		ctx := testCtx(t)
		var res mcp.ToolResultJSON
		if err := st.client.Call(ctx, "tools/call", refs, &res); err != nil {
			t.Fatal(err)
		}
		const want = "gopls did not finish loading the workspace within 1s; retry later, or restart goplsmcp with a longer --load-timeout or a narrower --root"
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("go_symbol_references beyond the load timeout = %s; want the error %q", res.Text(), want)
		}
		// The load goes on, in the same gopls, and a later call finds it
		// done.
		waitUntil(t, ctx, "gopls to finish loading", st.lsp.Loaded)
		if got := st.lsp.PID(); got != pid {
			t.Errorf("gopls was replaced (pid %d, then %d) for loading slowly", pid, got)
		}
		res = mcp.ToolResultJSON{}
		if err := st.client.Call(ctx, "tools/call", refs, &res); err != nil || res.IsError {
			t.Errorf("go_symbol_references once loaded: %v %s", err, res.Text())
		}
	})
}
