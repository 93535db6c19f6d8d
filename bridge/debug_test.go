package bridge_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestDebugTrace checks debug: true against a real gopls: the answer also
// carries the LSP requests the call made (methods, durations, outcomes),
// in structuredContent, valid against the tool's output schema, and in
// the text (a failed call, which has no structuredContent, in the text
// alone); a gopls error shows as its code, never its message.
func TestDebugTrace(t *testing.T) {
	root := exampleRoot(t)
	c, _ := startConfigured(t, root, bridge.Config{})
	ctx := testCtx(t)
	schemas := outputSchemas(t, ctx, c)

	trace := func(res *mcp.ToolResultJSON) []mcp.TraceEntry {
		t.Helper()
		var out struct {
			Debug *mcp.DebugInfo `json:"debug"`
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out.Debug == nil {
			t.Fatalf("no debug in %s (%v)", res.StructuredContent, err)
		}
		if out.Debug.Ms <= 0 {
			t.Errorf("debug.ms = %v", out.Debug.Ms)
		}
		return out.Debug.Requests
	}
	methods := func(entries []mcp.TraceEntry) []string {
		var ms []string
		for _, e := range entries {
			ms = append(ms, e.Method)
		}
		return ms
	}

	res, err := c.CallTool(ctx, "go_definition", map[string]any{"file": "main.go", "symbol": "report.Summary", "debug": true})
	if err != nil || res.IsError {
		t.Fatalf("go_definition: %v %s", err, res.Text())
	}
	if err := validateOutput(schemas["go_definition"], res.StructuredContent); err != nil {
		t.Errorf("structuredContent with debug does not match the output schema: %v", err)
	}
	entries := trace(res)
	if !slices.Contains(methods(entries), "textDocument/definition") {
		t.Errorf("the trace lacks textDocument/definition: %v", methods(entries))
	}
	for _, e := range entries {
		if !e.OK || e.Error != "" || e.Ms < 0 {
			t.Errorf("request %+v of a call that succeeded", e)
		}
	}
	if !strings.Contains(res.Text(), "\ndebug: ") || !strings.Contains(res.Text(), "\n  textDocument/definition ") {
		t.Errorf("the text lacks the trace:\n%s", res.Text())
	}

	// The same call without debug carries none.
	plain, err := c.CallTool(ctx, "go_definition", map[string]any{"file": "main.go", "symbol": "report.Summary"})
	if err != nil || plain.IsError {
		t.Fatalf("go_definition: %v %s", err, plain.Text())
	}
	if strings.Contains(string(plain.StructuredContent), `"debug"`) || strings.Contains(plain.Text(), "debug:") {
		t.Errorf("a call without debug reports a trace: %s", plain.Text())
	}

	// A workspace-wide command is named with its command.
	res, err = c.CallTool(ctx, "go_workspace", map[string]any{"debug": true})
	if err != nil || res.IsError {
		t.Fatalf("go_workspace: %v %s", err, res.Text())
	}
	if ms := methods(trace(res)); !slices.Contains(ms, "workspace/executeCommand gopls.views") {
		t.Errorf("go_workspace's trace: %v", ms)
	}

	// gopls refuses a rename that conflicts: its error shows as a code.
	res, err = c.CallTool(ctx, "go_rename_symbol", map[string]any{"text": "package p\n\nfunc f() {\n\tx := 1\n\ty := 2\n\t_, _ = x, y\n}\n",
		"line": 4, "column": 2, "new_name": "y", "debug": true})
	if err != nil {
		t.Fatal(err)
	}
	// A failed call has no structuredContent: the trace is in the text,
	// after the message.
	if !res.IsError || len(res.StructuredContent) > 0 {
		t.Fatalf("a failed call with debug: isError %v, structuredContent %s", res.IsError, res.StructuredContent)
	}
	msg, trail, ok := strings.Cut(res.Text(), "\ndebug: ")
	if !ok || msg == "" {
		t.Fatalf("a failed call's text lacks the trace:\n%s", res.Text())
	}
	var codes []string
	for _, line := range strings.Split(trail, "\n")[1:] {
		if strings.Contains(line, " gopls error ") {
			codes = append(codes, strings.TrimSpace(line))
		}
	}
	if len(codes) == 0 || !strings.HasPrefix(codes[0], "textDocument/") {
		t.Errorf("the failed request in the trace: %v (all:\n%s)", codes, trail)
	}
}

// TestBuildContextCounts: go_workspace and goplsmcp://limits say how many
// build flags, environment variables and settings were fixed at launch.
func TestBuildContextCounts(t *testing.T) {
	root := exampleRoot(t)
	want := bridge.BuildContext{BuildFlags: 1, Env: 2, Settings: 3}
	c, _ := startConfigured(t, root, bridge.Config{BuildContext: want})
	ctx := testCtx(t)
	res, err := c.CallTool(ctx, "go_workspace", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("go_workspace: %v %s", err, res.Text())
	}
	var ws struct {
		BuildContext *bridge.BuildContext `json:"buildContext"`
	}
	if err := json.Unmarshal(res.StructuredContent, &ws); err != nil || ws.BuildContext == nil {
		t.Fatalf("go_workspace has no buildContext: %s", res.StructuredContent)
	}
	if diff := cmp.Diff(want, *ws.BuildContext); diff != "" {
		t.Errorf("go_workspace buildContext (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Text(), "fixed at launch: 1 build flag, 2 environment variables, 3 gopls settings") {
		t.Errorf("go_workspace text:\n%s", res.Text())
	}
	var read struct {
		Contents []struct{ Text string }
	}
	if err := c.Call(ctx, "resources/read", map[string]any{"uri": "goplsmcp://limits"}, &read); err != nil || len(read.Contents) != 1 {
		t.Fatalf("reading the limits: %v", err)
	}
	var lim bridge.LimitsJSON
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &lim); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, lim.BuildContext); diff != "" {
		t.Errorf("goplsmcp://limits buildContext (-want +got):\n%s", diff)
	}
}
