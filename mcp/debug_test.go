package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// recorder stands in for a backend: the "traced" tool reports its
// requests to the recorder its context carries.
type recorder struct {
	mu      sync.Mutex
	entries []TraceEntry
}

type recorderKey struct{}

func testTracer(ctx context.Context) (context.Context, func() []TraceEntry) {
	r := &recorder{}
	return context.WithValue(ctx, recorderKey{}, r), func() []TraceEntry {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.entries
	}
}

// addTracedTool registers "traced", which makes two backend requests,
// the second failing, and fails itself when asked to.
func addTracedTool(t *testing.T, s *Server) {
	t.Helper()
	type in struct {
		Fail bool `json:"fail,omitempty"`
	}
	err := AddTool(s, Tool{Name: "traced", Title: "Traced", Description: "Makes two backend requests.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *in) (*echoOut, error) {
			if r, ok := ctx.Value(recorderKey{}).(*recorder); ok {
				r.mu.Lock()
				r.entries = append(r.entries, TraceEntry{Method: "a/first", Ms: 1.5, OK: true}, TraceEntry{Method: "a/second", Ms: 2, Error: "timeout"})
				r.mu.Unlock()
			}
			if in.Fail {
				return nil, errors.New("it failed as asked")
			}
			return &echoOut{Echo: "done"}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDebugArgument checks docs/tools.md's debug: true: every tool accepts
// it, and the result then carries the backend requests under "debug" in
// structuredContent (valid against the output schema) and at the end of
// the text; a failed call has it in the text only, since it has no
// structuredContent; without it, the result is unchanged.
func TestDebugArgument(t *testing.T) {
	s := testServer(t, nil)
	addTracedTool(t, s)
	s.SetTracer(testTracer)
	ps := startSession(t, s)
	ps.initialize("2025-11-25")

	ps.send(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`)
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range ps.recv()["result"].(map[string]any)["tools"].([]any) {
		m := tool.(map[string]any)
		if _, ok := m["inputSchema"].(map[string]any)["properties"].(map[string]any)["debug"]; !ok {
			t.Errorf("tool %s has no debug argument", m["name"])
		}
		data, _ := json.Marshal(m["outputSchema"])
		var sch jsonschema.Schema
		if err := json.Unmarshal(data, &sch); err != nil {
			t.Fatal(err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		schemas[m["name"].(string)] = r
	}

	result := func(id, args string) map[string]any {
		t.Helper()
		ps.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"traced","arguments":` + args + `}}`)
		m := ps.recv()
		res, ok := m["result"].(map[string]any)
		if !ok {
			t.Fatalf("call %s: no result: %v", id, m)
		}
		return res
	}
	text := func(res map[string]any) string {
		return res["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	wantRequests := []any{
		map[string]any{"method": "a/first", "ms": 1.5, "ok": true},
		map[string]any{"method": "a/second", "ms": 2.0, "ok": false, "error": "timeout"},
	}

	res := result("1", `{"debug":true}`)
	sc := res["structuredContent"].(map[string]any)
	dbg, ok := sc["debug"].(map[string]any)
	if !ok {
		t.Fatalf("structuredContent has no debug: %v", sc)
	}
	if diff := cmp.Diff(wantRequests, dbg["requests"]); diff != "" {
		t.Errorf("debug.requests (-want +got):\n%s", diff)
	}
	if _, ok := dbg["ms"].(float64); !ok {
		t.Errorf("debug.ms is %v, want a number", dbg["ms"])
	}
	if sc["echo"] != "done" {
		t.Errorf("the tool's own output is lost: %v", sc)
	}
	if err := schemas["traced"].Validate(sc); err != nil {
		t.Errorf("structuredContent with debug does not match the output schema: %v", err)
	}
	lines := strings.Split(text(res), "\n")
	if len(lines) != 4 || lines[0] != "echo: done" || !strings.HasPrefix(lines[1], "debug: ") ||
		lines[2] != "  a/first 1.5 ms" || lines[3] != "  a/second 2 ms timeout" {
		t.Errorf("text with debug:\n%s", text(res))
	}

	res = result("2", `{"debug":false}`)
	if _, ok := res["structuredContent"].(map[string]any)["debug"]; ok || strings.Contains(text(res), "debug") {
		t.Errorf("debug: false still reports: %v", res)
	}
	res = result("3", `{}`)
	if _, ok := res["structuredContent"].(map[string]any)["debug"]; ok || text(res) != "echo: done" {
		t.Errorf("a call without debug reports: %v", res)
	}

	// A failed call carries no structuredContent: the debug lines follow
	// the message in the text.
	res = result("4", `{"debug":true,"fail":true}`)
	if res["isError"] != true {
		t.Fatalf("failed call: %v", res)
	}
	if sc, ok := res["structuredContent"]; ok {
		t.Errorf("failed call has structuredContent %v", sc)
	}
	lines = strings.Split(text(res), "\n")
	if len(lines) != 4 || lines[0] != "it failed as asked" || !strings.HasPrefix(lines[1], "debug: ") ||
		lines[2] != "  a/first 1.5 ms" || lines[3] != "  a/second 2 ms timeout" {
		t.Errorf("failed call's text with debug:\n%s", text(res))
	}

	res = result("5", `{"debug":"yes"}`)
	if res["isError"] != true || !strings.Contains(text(res), "debug") {
		t.Errorf("debug that is not a boolean: %v", res)
	}

	// Another tool, whose output renders as text only, still gets it.
	ps.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","debug":true}}}`)
	res = ps.recv()["result"].(map[string]any)
	if got := text(res); !strings.HasPrefix(got, "echo: x\ndebug: ") || !strings.HasSuffix(got, ", 0 requests") {
		t.Errorf("echo with debug: %q", got)
	}
}

// TestDebugOldVersion: a client without structuredContent gets the debug
// lines in the text alone.
func TestDebugOldVersion(t *testing.T) {
	s := testServer(t, nil)
	addTracedTool(t, s)
	s.SetTracer(testTracer)
	got := runLines(t, s, "2025-03-26", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"traced","arguments":{"debug":true}}}`})
	if len(got) != 1 || strings.Contains(got[0], "structuredContent") || !strings.Contains(got[0], `a/second 2 ms timeout`) {
		t.Errorf("answer at 2025-03-26: %v", got)
	}
}

// TestKeepTools checks the allow-list behind --tools: the others are
// neither listed nor callable, the list is smaller, and an unknown name
// changes nothing.
func TestKeepTools(t *testing.T) {
	listBytes := func(s *Server) (int, []string) {
		t.Helper()
		got := runLines(t, s, "2025-11-25", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`})
		var m struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(got[0]), &m); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range m.Result.Tools {
			names = append(names, tool.Name)
		}
		return len(got[0]), names
	}
	s := testServer(t, nil)
	all := s.ToolNames()
	fullSize, listed := listBytes(s)
	if diff := cmp.Diff(all, listed); diff != "" {
		t.Errorf("ToolNames and tools/list differ (-names +listed):\n%s", diff)
	}
	if err := s.KeepTools([]string{"echo", "nope", "fail", "neither"}); err == nil || err.Error() != "no such tool: nope, neither" {
		t.Errorf("KeepTools with unknown names: %v", err)
	}
	if diff := cmp.Diff(all, s.ToolNames()); diff != "" {
		t.Errorf("a failed KeepTools changed the tools (-before +after):\n%s", diff)
	}
	if err := s.KeepTools([]string{"fail", "echo"}); err != nil {
		t.Fatal(err)
	}
	size, listed := listBytes(s)
	if diff := cmp.Diff([]string{"echo", "fail"}, listed); diff != "" {
		t.Errorf("tools/list after KeepTools (-want +got):\n%s", diff)
	}
	if size >= fullSize {
		t.Errorf("tools/list is %d bytes with two tools, %d with all", size, fullSize)
	}
	got := runLines(t, s, "2025-11-25", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"linked","arguments":{}}}`})
	want := []string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"unknown tool"}],"isError":true}}`}
	if diff := sameMessages(t, want, got); diff != "" {
		t.Errorf("calling a tool left out (-want +got):\n%s", diff)
	}
}

// TestCallTool checks the in-process call behind goplsmcp call: the same
// result a client gets, tool errors as results, and errors only for
// arguments that are not an object and for a panic.
func TestCallTool(t *testing.T) {
	s := testServer(t, nil)
	addTracedTool(t, s)
	s.SetTracer(testTracer)
	ctx := context.Background()

	res, err := s.CallTool(ctx, "echo", json.RawMessage(`{"text":"ab","count":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Text() != "echo: abab" || string(res.StructuredContent) != `{"echo":"abab"}` {
		t.Errorf("echo: %+v", res)
	}
	res, err = s.CallTool(ctx, "traced", json.RawMessage(`{"debug":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Debug DebugInfo `json:"debug"`
	}
	if err := json.Unmarshal(res.StructuredContent, &sc); err != nil || len(sc.Debug.Requests) != 2 {
		t.Errorf("traced with debug: %s (%v)", res.StructuredContent, err)
	}
	for _, tc := range []struct{ name, args, text string }{
		{"nope", `{}`, "unknown tool"},
		{"fail", ``, "the tool failed on purpose"},
		{"echo", `{"text":1}`, "invalid arguments"},
	} {
		res, err := s.CallTool(ctx, tc.name, json.RawMessage(tc.args))
		if err != nil {
			t.Errorf("%s %s: %v", tc.name, tc.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(res.Text(), tc.text) {
			t.Errorf("%s %s: %+v, want an error result saying %q", tc.name, tc.args, res, tc.text)
		}
	}
	if _, err := s.CallTool(ctx, "echo", json.RawMessage(`[1]`)); err == nil {
		t.Error("arguments that are not an object: no error")
	}
	if _, err := s.CallTool(ctx, "panic", nil); err == nil {
		t.Error("a panicking tool: no error")
	}
}
