package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each row checks one rule of DESIGN §3 with raw lines: it sends the lines
// in order and compares the one response that follows.
func TestLifecycleRules(t *testing.T) {
	tests := []struct {
		name   string
		design string // the DESIGN clause checked
		init   bool   // initialize first
		lines  []string
		want   map[string]any
	}{
		{
			name:   "tools/list before initialize",
			design: "§3 anything else earlier is answered -32002",
			lines:  []string{`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 7.0, "error": map[string]any{"code": -32002.0, "message": "Server not initialized"}},
		},
		{
			name:   "server/discover probe before initialize",
			design: "§3 including server/discover probes",
			lines:  []string{`{"jsonrpc":"2.0","id":"d","method":"server/discover"}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": "d", "error": map[string]any{"code": -32002.0, "message": "Server not initialized"}},
		},
		{
			name:   "ping before initialize",
			design: "§3 ping is allowed at any time",
			lines:  []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 1.0, "result": map[string]any{}},
		},
		{
			name:   "tools/list after initialize but before initialized",
			design: "§3 must initialize, then send notifications/initialized",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			},
			want: map[string]any{"jsonrpc": "2.0", "id": 2.0, "error": map[string]any{"code": -32002.0, "message": "Server not initialized"}},
		},
		{
			name:   "second initialize",
			design: "§3 a second initialize is an error (-32600)",
			init:   true,
			lines:  []string{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 2.0, "error": map[string]any{"code": -32600.0, "message": "Invalid Request: the session is already initialized"}},
		},
		{
			name:   "malformed JSON",
			design: "§3 malformed JSON: -32700 with no id",
			lines:  []string{`{"jsonrpc":"2.0","id":1,"method":`},
			want:   map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32700.0, "message": "Parse error"}},
		},
		{
			name:   "batch",
			design: "§3 a JSON array (batch) is rejected with -32600",
			init:   true,
			lines:  []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
			want:   map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600.0, "message": "Invalid Request: batches are not supported"}},
		},
		{
			name:   "unknown method after initialize",
			design: "§3 unknown method -32601",
			init:   true,
			lines:  []string{`{"jsonrpc":"2.0","id":3,"method":"no/such"}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 3.0, "error": map[string]any{"code": -32601.0, "message": "Method not found"}},
		},
		{
			name:   "unknown tool",
			design: "§3 unknown tool: isError with the constant text",
			init:   true,
			lines:  []string{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope <script>"}}`},
			want: map[string]any{"jsonrpc": "2.0", "id": 4.0, "result": map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": "unknown tool"}},
				"structuredContent": map[string]any{"error": "unknown tool"},
				"isError":           true,
			}},
		},
		{
			name:   "arguments not an object",
			design: "§3 arguments that is not an object: -32602",
			init:   true,
			lines:  []string{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 5.0, "error": map[string]any{"code": -32602.0, "message": "Invalid params: arguments must be an object"}},
		},
		{
			name:   "id 0 is valid",
			design: `§3 "id": 0 is a valid id`,
			lines:  []string{`{"jsonrpc":"2.0","id":0,"method":"ping"}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 0.0, "result": map[string]any{}},
		},
		{
			name:   "null id",
			design: "§3 null id: -32600",
			lines:  []string{`{"jsonrpc":"2.0","id":null,"method":"ping"}`},
			want:   map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600.0, "message": "Invalid Request: id must be a string or an integer"}},
		},
		{
			name:   "fractional id",
			design: "§3 fractional id: -32600",
			lines:  []string{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`},
			want:   map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600.0, "message": "Invalid Request: id must be a string or an integer"}},
		},
		{
			name:   "notification not answered",
			design: "§3 nothing without an id is ever answered",
			lines: []string{
				`{"jsonrpc":"2.0","method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
			},
			want: map[string]any{"jsonrpc": "2.0", "id": 9.0, "result": map[string]any{}},
		},
		{
			name:   "tool error",
			design: "§3 a tool mistake is isError with a sentence",
			init:   true,
			lines:  []string{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fail","arguments":{}}}`},
			want: map[string]any{"jsonrpc": "2.0", "id": 6.0, "result": map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": "the tool failed on purpose"}},
				"structuredContent": map[string]any{"error": "the tool failed on purpose"},
				"isError":           true,
			}},
		},
		{
			name:   "panic",
			design: "§3 unexpected failure: -32603 Internal error",
			init:   true,
			lines:  []string{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"panic","arguments":{}}}`},
			want:   map[string]any{"jsonrpc": "2.0", "id": 8.0, "error": map[string]any{"code": -32603.0, "message": "Internal error"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := startSession(t, testServer(t, nil))
			if tt.init {
				ps.initialize("2025-06-18")
			}
			for _, l := range tt.lines {
				ps.send(l)
			}
			got := ps.recv()
			if strings.Contains(tt.lines[0], `"method":"initialize"`) && !tt.init {
				got = ps.recv() // the answer to initialize came first
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: response mismatch (-want +got):\n%s", tt.design, diff)
			}
			// The session goes on after every case.
			ps.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			if m := ps.recv(); m["id"] != "after" || m["result"] == nil {
				t.Errorf("session did not go on: %v", m)
			}
		})
	}
}

func TestVersionNegotiation(t *testing.T) {
	for _, tt := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2023-01-01", "2025-11-25"},
		{"next", "2025-11-25"},
	} {
		t.Run(tt.asked, func(t *testing.T) {
			ps := startSession(t, testServer(t, nil))
			m := ps.initialize(tt.asked)
			res, _ := m["result"].(map[string]any)
			if got := res["protocolVersion"]; got != tt.want {
				t.Errorf("asked %s: got protocolVersion %v, want %s", tt.asked, got, tt.want)
			}
		})
	}
}

func TestOverlongLine(t *testing.T) {
	ps := startSession(t, testServer(t, &Options{MaxMessageBytes: 100}))
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 200) + `"}}`)
	got := ps.recv()
	want := map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32600.0, "message": "Invalid Request: message exceeds 100 bytes"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("over-cap line (-want +got):\n%s", diff)
	}
	// Exactly at the cap, with CRLF: the CR does not count.
	line := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"p":"`
	line += strings.Repeat("y", 100-len(line)-3) + `"}}`
	if len(line) != 100 {
		t.Fatalf("test line is %d bytes, want 100", len(line))
	}
	ps.send(line + "\r")
	if m := ps.recv(); m["id"] != 2.0 || m["result"] == nil {
		t.Errorf("a 100-byte line with CRLF under a 100-byte cap: got %v", m)
	}
}

func TestToolsListAndCall(t *testing.T) {
	ps := startSession(t, testServer(t, nil))
	ps.initialize("2025-06-18")
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	m := ps.recv()
	tools := m["result"].(map[string]any)["tools"].([]any)
	echo := tools[0].(map[string]any)
	wantEcho := map[string]any{
		"name":        "echo",
		"title":       "Echo",
		"description": "Echoes text.",
		"inputSchema": map[string]any{
			"type":                 "object",
			"required":             []any{"text"},
			"properties":           map[string]any{"text": map[string]any{"type": "string", "description": "what to echo"}, "count": map[string]any{"type": "integer"}},
			"additionalProperties": false,
		},
		"outputSchema": map[string]any{
			"type":                 "object",
			"required":             []any{"echo"},
			"properties":           map[string]any{"echo": map[string]any{"type": "string"}},
			"additionalProperties": false,
		},
	}
	if diff := cmp.Diff(wantEcho, echo); diff != "" {
		t.Errorf("tools/list echo (-want +got):\n%s", diff)
	}
	// A tool without input fields still has properties.
	fail := tools[1].(map[string]any)
	if _, ok := fail["inputSchema"].(map[string]any)["properties"]; !ok {
		t.Errorf("fail's inputSchema has no properties: %v", fail["inputSchema"])
	}

	ps.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi","count":2}}}`)
	got := ps.recv()
	want := map[string]any{"jsonrpc": "2.0", "id": 2.0, "result": map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": "echo: hihi"}},
		"structuredContent": map[string]any{"echo": "hihi"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("echo call (-want +got):\n%s", diff)
	}

	for _, tc := range []struct{ args, want string }{
		{`{"text":1}`, "invalid arguments"},
		{`{}`, "invalid arguments"},
		{`{"text":"a","extra":true}`, "invalid arguments"},
		{`{"text":"a","count":1.5}`, "invalid arguments"},
	} {
		ps.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":` + tc.args + `}}`)
		res := ps.recv()["result"].(map[string]any)
		text := res["content"].([]any)[0].(map[string]any)["text"].(string)
		if res["isError"] != true || !strings.HasPrefix(text, tc.want) {
			t.Errorf("echo %s: got isError=%v %q, want a tool error starting %q", tc.args, res["isError"], text, tc.want)
		}
	}
}

func TestVersionGatedFields(t *testing.T) {
	ps := startSession(t, testServer(t, nil))
	ps.initialize("2024-11-05")
	ps.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	echo := ps.recv()["result"].(map[string]any)["tools"].([]any)[0].(map[string]any)
	for _, field := range []string{"title", "outputSchema", "annotations"} {
		if _, ok := echo[field]; ok {
			t.Errorf("2024-11-05 tools/list has %q", field)
		}
	}
	ps.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	res := ps.recv()["result"].(map[string]any)
	if _, ok := res["structuredContent"]; ok {
		t.Errorf("2024-11-05 tools/call result has structuredContent: %v", res)
	}
}
