package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVersionNegotiation checks docs/protocol.md: a supported version is echoed; any
// other non-empty version is answered as 2025-11-25.
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

// TestOverlongLine checks docs/protocol.md: a line over the cap is answered -32600 and
// skipped; the CR of a CRLF does not count toward the cap.
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

// TestToolsListAndCall checks docs/protocol.md's schema rules on a tool: input and output
// schemas from Go types, properties on every object schema, inputs listed
// without additionalProperties (every tool's schema goes to eager clients
// with every request) yet an unknown argument refused, and invalid
// arguments as tool errors.
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
			"type":     "object",
			"required": []any{"text"},
			"properties": map[string]any{"text": map[string]any{"type": "string", "description": "what to echo"}, "count": map[string]any{"type": "integer"},
				"debug": map[string]any{"type": "boolean"}},
		},
		"outputSchema": map[string]any{
			"type":       "object",
			"required":   []any{"echo"},
			"properties": map[string]any{"echo": map[string]any{"type": "string"}},
		},
		"annotations": map[string]any{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
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
