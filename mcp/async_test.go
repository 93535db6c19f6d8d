package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProgress checks docs/protocol.md: _meta.progressToken on a call gets
// notifications/progress, monotonic, with a message, all before the
// response; a call without a token gets none.
func TestProgress(t *testing.T) {
	got := runLines(t, testServer(t, nil), "2025-11-25", []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"tok"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":0}}}`,
	})
	byToken := map[string][]float64{}
	answered := map[string]bool{}
	for _, line := range got {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Token    json.RawMessage `json:"progressToken"`
				Progress float64         `json:"progress"`
				Message  string          `json:"message"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.Method == "" {
			answered[string(m.ID)] = true
			continue
		}
		tok := string(m.Params.Token)
		if (tok == `"tok"` && answered["1"]) || (tok == "0" && answered["3"]) {
			t.Errorf("progress %s after its call's response", line)
		}
		if want := fmt.Sprintf("step %d", len(byToken[tok])+1); m.Params.Message != want {
			t.Errorf("progress message %q, want %q", m.Params.Message, want)
		}
		byToken[tok] = append(byToken[tok], m.Params.Progress)
	}
	want := map[string][]float64{`"tok"`: {1, 2, 3}, "0": {1, 2}}
	if diff := cmp.Diff(want, byToken); diff != "" {
		t.Errorf("progress values by token (-want +got):\n%s", diff)
	}
}

// TestNoProgressAfterResponse checks docs/protocol.md: progress is never sent after the
// response, even by work the handler left running.
func TestNoProgressAfterResponse(t *testing.T) {
	s := NewServer("test", "v0", nil)
	// The reporter waits for the response to be read, then tries 50
	// times; a test that let those through would see them below.
	responded := make(chan struct{})
	afterReturn := make(chan struct{})
	var bg sync.WaitGroup
	err := AddTool(s, Tool{Name: "linger", Title: "Linger", Description: "Leaves a reporter running.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			ReportProgress(ctx, "inside")
			bg.Go(func() {
				<-responded
				for range 50 {
					ReportProgress(ctx, "outside")
				}
				close(afterReturn)
			})
			return &echoOut{Echo: "done"}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	ps := startSession(t, s)
	ps.initialize("2025-11-25")
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"linger","_meta":{"progressToken":"t"}}}`)
	var seen []string
	for {
		m := ps.recv()
		if m["method"] == "notifications/progress" {
			seen = append(seen, m["params"].(map[string]any)["message"].(string))
			continue
		}
		if m["id"] != 1.0 {
			t.Fatalf("unexpected message %v", m)
		}
		break
	}
	close(responded)
	within(t, "50 reports after the response", afterReturn)
	bg.Wait()
	ps.in.Close()
	for line := range ps.lines {
		t.Errorf("message after the response: %s", line)
	}
	if len(seen) == 0 || seen[0] != "inside" {
		t.Errorf("progress before the response: %q, want it to start with the handler's own report", seen)
	}
}

// gateServer has a tool "gate" that records how many calls run at once and
// holds each until release is closed or its call is cancelled.
type gateServer struct {
	*Server
	mu       sync.Mutex
	running  int
	peak     int
	started  chan string // the id argument of each call that starts
	stopped  chan string // ... and of each that sees its context end
	release  chan struct{}
	sessions chan string
}

type gateIn struct {
	ID string `json:"id"`
}

func newGateServer(t *testing.T, opts *Options) *gateServer {
	t.Helper()
	g := &gateServer{
		Server:  NewServer("test", "v0", opts),
		started: make(chan string, 100), stopped: make(chan string, 100),
		release: make(chan struct{}), sessions: make(chan string, 100),
	}
	err := AddTool(g.Server, Tool{Name: "gate", Title: "Gate", Description: "Waits for the test.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *gateIn) (*echoOut, error) {
			g.mu.Lock()
			g.running++
			g.peak = max(g.peak, g.running)
			g.mu.Unlock()
			defer func() {
				g.mu.Lock()
				g.running--
				g.mu.Unlock()
			}()
			g.sessions <- SessionID(ctx)
			g.started <- in.ID
			select {
			case <-g.release:
				return &echoOut{Echo: in.ID}, nil
			case <-ctx.Done():
				g.stopped <- in.ID
				return nil, ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func gateCall(id string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"gate","arguments":{"id":"` + id + `"}}}`
}

// TestCancellation checks docs/protocol.md: notifications/cancelled stops the work (the
// handler's context ends) and no response is sent for the cancelled id,
// whether the call was running or still waiting for its turn.
func TestCancellation(t *testing.T) {
	g := newGateServer(t, &Options{MaxInFlight: 1})
	ps := startSession(t, g.Server)
	ps.initialize("2025-11-25")
	ps.send(gateCall("running"))
	if id := within(t, "the first call to start", g.started); id != "running" {
		t.Fatalf("started %q", id)
	}
	ps.send(gateCall("queued")) // waits: MaxInFlight is 1
	ps.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"queued","reason":"changed my mind"}}`)
	ps.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"running"}}`)
	if id := within(t, "the running call to see its cancellation", g.stopped); id != "running" {
		t.Fatalf("stopped %q", id)
	}
	ps.send(pingAfter)
	ps.in.Close()
	var got []string
	for line := range ps.lines {
		got = append(got, line)
	}
	if diff := sameMessages(t, []string{pongAfter}, got); diff != "" {
		t.Errorf("after cancelling both calls (-want +got):\n%s", diff)
	}
	select {
	case id := <-g.started:
		t.Errorf("the cancelled queued call %q still ran", id)
	default:
	}
}

// TestLateCancellation checks docs/protocol.md: a cancellation that arrives after the
// response is ignored and the session goes on.
func TestLateCancellation(t *testing.T) {
	ps := startSession(t, testServer(t, nil))
	ps.initialize("2025-11-25")
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	if m := ps.recv(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("echo: %v", m)
	}
	ps.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	ps.noMessage()
	// The id may be used again once its call has ended.
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y"}}}`)
	if m := ps.recv(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("echo again: %v", m)
	}
}

// TestConcurrencyBound checks docs/protocol.md: requests are in flight concurrently up
// to a bound; ping is answered while the bound is reached, and every call
// is answered once released.
func TestConcurrencyBound(t *testing.T) {
	g := newGateServer(t, &Options{MaxInFlight: 2})
	ps := startSession(t, g.Server)
	ps.initialize("2025-11-25")
	for i := range 5 {
		ps.send(gateCall(fmt.Sprint(i)))
	}
	within(t, "a first call", g.started)
	within(t, "a second call", g.started)
	// The session still reads and answers while two calls hold it.
	ps.send(pingAfter)
	if m := ps.recv(); m["id"] != "after" {
		t.Fatalf("got %v before the ping's answer", m)
	}
	// Duplicate ids in flight are refused.
	ps.send(gateCall("4"))
	if m := ps.recv(); errorCode(m) != CodeInvalidRequest || m["id"] != "4" {
		t.Errorf("duplicate id in flight: %v", m)
	}
	close(g.release)
	seen := map[string]bool{}
	for range 5 {
		m := ps.recv()
		seen[m["id"].(string)] = true
	}
	if len(seen) != 5 {
		t.Errorf("answers for %v, want 5 distinct ids", seen)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.peak != 2 {
		t.Errorf("at most %d calls ran at once, want exactly the bound, 2", g.peak)
	}
}

// TestWholeLineWrites checks docs/protocol.md's framing under load: many concurrent
// calls with large answers and progress produce only whole, valid lines.
func TestWholeLineWrites(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s","count":2000}}}`, i, strings.Repeat(string(rune('a'+i%26)), 8)),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"tools/call","params":{"name":"progress","arguments":{"steps":20},"_meta":{"progressToken":%d}}}`, i, i))
	}
	got := runLines(t, testServer(t, &Options{MaxInFlight: 16}), "2025-11-25", lines)
	responses := 0
	for _, l := range got {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("not a whole JSON-RPC line: %.100q", l)
		}
		if m["method"] == nil {
			responses++
		}
	}
	if want := 80; responses != want || len(got) != want+40*20 {
		t.Errorf("got %d responses and %d lines, want %d and %d", responses, len(got), want, want+40*20)
	}
}

// TestLogFanOut checks docs/protocol.md's logging: Server.Log reaches each ready session
// at or above its level (warning by default, or what logging/setLevel
// set), and no session before it is ready.
func TestLogFanOut(t *testing.T) {
	s := testServer(t, nil)
	verbose := startSession(t, s)
	verbose.initialize("2025-11-25")
	verbose.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)
	verbose.recv()
	quiet := startSession(t, s)
	quiet.initialize("2025-06-18")
	quiet.noMessage() // notifications/initialized has been handled
	early := startSession(t, s)
	early.send(initLine("1", "2025-11-25"))
	early.recv() // initialized, but not ready

	s.Log(LevelInfo, "gopls", "loading\tpackages\n")
	s.Log(LevelError, "gopls", "\x1b[31mbroken\x1b[0m")

	want := func(level, data string) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": level, "logger": "gopls", "data": data}}
	}
	for _, w := range []map[string]any{want("info", "loading\tpackages\n"), want("error", "␛[31mbroken␛[0m")} {
		if diff := cmp.Diff(w, verbose.recv()); diff != "" {
			t.Errorf("debug-level session (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(want("error", "␛[31mbroken␛[0m"), quiet.recv()); diff != "" {
		t.Errorf("default (warning) session: the info message must not come first (-want +got):\n%s", diff)
	}
	early.noMessage()
}

// TestSessionIDs checks that each session has its own id, visible to
// handlers through their context (per-session isolation, docs/sidecar.md).
func TestSessionIDs(t *testing.T) {
	g := newGateServer(t, nil)
	close(g.release)
	ids := make([]string, 3)
	for i := range 2 {
		ps := startSession(t, g.Server)
		ps.initialize("2025-11-25")
		ps.send(gateCall("a"))
		ps.recv()
		ids[i] = within(t, "the session id", g.sessions)
		if i == 0 {
			ps.send(gateCall("b"))
			ps.recv()
			ids[2] = within(t, "the session id", g.sessions)
		}
	}
	if ids[0] == "" || ids[0] == ids[1] || ids[0] != ids[2] {
		t.Errorf("session ids %q: want one non-empty id per session, the same for calls of one session", ids)
	}
	if got := SessionID(context.Background()); got != "" {
		t.Errorf("SessionID outside a request = %q", got)
	}
}

// TestToolMiddleware checks that middleware wraps every tool call in the
// documented order and sees the tool's name.
func TestToolMiddleware(t *testing.T) {
	s := testServer(t, nil)
	var mu sync.Mutex
	var trace []string
	for _, name := range []string{"inner", "outer"} {
		s.AddToolMiddleware(func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
			mu.Lock()
			trace = append(trace, name+">"+tool)
			mu.Unlock()
			res, err := next(ctx)
			mu.Lock()
			trace = append(trace, name+"<")
			mu.Unlock()
			return res, err
		})
	}
	runLines(t, s, "2025-11-25", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`})
	if diff := cmp.Diff([]string{"outer>echo", "inner>echo", "inner<", "outer<"}, trace); diff != "" {
		t.Errorf("middleware order (-want +got):\n%s", diff)
	}
}

// TestInternalErrorLog checks docs/protocol.md: an unexpected failure is answered -32603
// and the log records the error type and a short message, never source
// text.
func TestInternalErrorLog(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	runLines(t, testServer(t, &Options{Logger: log}), "2025-11-25", []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"unencodable"}}`,
	})
	mu.Lock()
	defer mu.Unlock()
	var records []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		delete(r, "time")
		delete(r, "stack")
		records = append(records, r)
	}
	want := []map[string]any{
		{"level": "ERROR", "msg": "handler panicked", "method": "tools/call", "type": "string"},
		{"level": "ERROR", "msg": "request failed", "type": "*json.UnsupportedValueError", "error": "json: unsupported value: +Inf"},
	}
	if diff := sameMessages(t, jsonLines(want), jsonLines(records)); diff != "" {
		t.Errorf("log records (-want +got):\n%s", diff)
	}
	for _, secret := range []string{"secret source text", "func secret"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("the log holds source text %q", secret)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func jsonLines[T any](vs []T) []string {
	var out []string
	for _, v := range vs {
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// TestPagination checks docs/protocol.md's pagination: tools/list, resources/list and
// prompts/list page by an opaque cursor; an invalid cursor is -32602.
func TestPagination(t *testing.T) {
	s := testServer(t, &Options{PageSize: 2})
	for i := range 3 {
		if err := AddResource(s, Resource{URI: fmt.Sprintf("test://r%d", i), Name: fmt.Sprintf("r%d", i)},
			func(ctx context.Context) (string, error) { return "", nil }); err != nil {
			t.Fatal(err)
		}
	}
	ps := startSession(t, s)
	ps.initialize("2025-11-25")
	id := 0
	list := func(method, cursor string) map[string]any {
		t.Helper()
		id++
		params := "{}"
		if cursor != "" {
			params = `{"cursor":` + cursor + `}`
		}
		ps.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}`, id, method, params))
		return ps.recv()
	}
	walk := func(method, key string) ([]string, []string) {
		var names, cursors []string
		cursor := ""
		for range 10 {
			m := list(method, cursor)
			res, ok := m["result"].(map[string]any)
			if !ok {
				t.Fatalf("%s: %v", method, m)
			}
			for _, item := range res[key].([]any) {
				n := item.(map[string]any)["name"]
				if n == nil {
					n = item.(map[string]any)["uri"]
				}
				names = append(names, n.(string))
			}
			next, _ := res["nextCursor"].(string)
			if next == "" {
				return names, cursors
			}
			cursors = append(cursors, next)
			cursor = fmt.Sprintf("%q", next)
		}
		t.Fatalf("%s: more than 10 pages", method)
		return nil, nil
	}
	tools, toolCursors := walk("tools/list", "tools")
	if diff := cmp.Diff([]string{"echo", "fail", "panic", "block", "linked", "unencodable", "progress"}, tools); diff != "" {
		t.Errorf("tools over pages (-want +got):\n%s", diff)
	}
	if len(toolCursors) != 3 {
		t.Errorf("%d tool cursors, want 3 (pages of 2, 2, 2, 1)", len(toolCursors))
	}
	resources, _ := walk("resources/list", "resources")
	if diff := cmp.Diff([]string{"hello", "r0", "r1", "r2"}, resources); diff != "" {
		t.Errorf("resources over pages (-want +got):\n%s", diff)
	}
	prompts, _ := walk("prompts/list", "prompts")
	if diff := cmp.Diff([]string{"greet"}, prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}

	resourceCursor := fmt.Sprintf("%q", encodeCursor("resources", 2))
	for _, tc := range []struct{ method, cursor string }{
		{"tools/list", `"not a cursor"`},
		{"tools/list", `"%%%"`},
		{"tools/list", resourceCursor},                              // issued for another list
		{"tools/list", fmt.Sprintf("%q", encodeCursor("tools", 7))}, // past the end
		{"tools/list", fmt.Sprintf("%q", encodeCursor("tools", 0))}, // never issued
		{"tools/list", `"` + encodeCursorRaw("tools:02") + `"`},     // not canonical
		{"tools/list", `2`},
		{"prompts/list", `"x"`},
		{"resources/templates/list", `"x"`},
	} {
		m := list(tc.method, tc.cursor)
		if errorCode(m) != CodeInvalidParams {
			t.Errorf("%s with cursor %s: got %v, want -32602", tc.method, tc.cursor, m)
		}
	}
}

func encodeCursorRaw(s string) string { return base64URL(s) }

func base64URL(s string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}
