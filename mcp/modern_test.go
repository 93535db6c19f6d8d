package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// modernMeta is the _meta of a modern request at version, with level as
// its log level unless it is "".
func modernMeta(version, level string) string {
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}`
	if level != "" {
		m += `,"io.modelcontextprotocol/logLevel":"` + level + `"`
	}
	return m + "}"
}

// modernLine is a modern request of method with params (an object's
// members, or "") at 2026-07-28.
func modernLine(id, method, params string) string {
	if params != "" {
		params += ","
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + params + modernMeta("2026-07-28", "") + `}}`
}

// serverInfoMeta is the _meta every modern result of the test server
// carries.
const serverInfoMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","title":"Test server","version":"v0","icons":[{"src":"data:image/svg+xml;base64,PHN2Zy8+","mimeType":"image/svg+xml"}]}}`

// discoverLine is the test server's answer to server/discover.
func discoverLine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete",` + serverInfoMeta + `,` +
		`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
		`"capabilities":{"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":false},"prompts":{"listChanged":true},"completions":{},"logging":{}},` +
		`"instructions":"Use the tools.","ttlMs":3600000,"cacheScope":"public"}}`
}

// TestModern checks the modern revision over stdio: requests that name
// their version in _meta are served with no handshake, each on its own,
// beside a legacy session's or without one.
func TestModern(t *testing.T) {
	echoTool := `{"name":"echo","title":"Echo","description":"Echoes text.","icons":[{"src":"data:image/svg+xml;base64,PHN2Zy8+","mimeType":"image/svg+xml"}],` +
		`"inputSchema":{"type":"object","required":["text"],"properties":{"count":{"type":"integer"},"debug":{"type":"boolean"},"text":{"type":"string","description":"what to echo"}}},` +
		`"outputSchema":{"type":"object","required":["echo"],"properties":{"echo":{"type":"string"}}},` +
		`"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}}`
	tests := []struct {
		name    string
		version string // of a legacy initialize first, or ""
		lines   []string
		want    []string
	}{
		{
			name:  "discover with nothing before it",
			lines: []string{modernLine(`"d"`, "server/discover", "")},
			want:  []string{discoverLine(`"d"`)},
		},
		{
			name:  "tools/call without a handshake",
			lines: []string{modernLine("1", "tools/call", `"name":"echo","arguments":{"text":"hi"}`)},
			want: []string{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfoMeta + `,` +
				`"content":[{"type":"text","text":"echo: hi"}],"structuredContent":{"echo":"hi"}}}`},
		},
		{
			name:  "unsupported version",
			lines: []string{strings.Replace(modernLine("1", "tools/list", ""), "2026-07-28", "1900-01-01", 1)},
			want: []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version: send one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (the 2025 versions through initialize)",` +
				`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}}}`},
		},
		{
			name:  "no client capabilities",
			lines: []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
			want:  []string{errLine("1", "-32602", "Invalid params: _meta.io.modelcontextprotocol/clientCapabilities must be an object (an empty one declares none)")},
		},
		{
			name:  "a bad log level",
			lines: []string{strings.Replace(modernLine("1", "tools/list", ""), `"io.modelcontextprotocol/clientInfo"`, `"io.modelcontextprotocol/logLevel":"loud","io.modelcontextprotocol/clientInfo"`, 1)},
			want:  []string{errLine("1", "-32602", "Invalid params: _meta.io.modelcontextprotocol/logLevel must be one of debug, info, notice, warning, error, critical, alert, emergency")},
		},
		{
			name: "methods the modern revision removed",
			lines: []string{
				modernLine("1", "ping", ""),
				modernLine("2", "logging/setLevel", `"level":"debug"`),
				modernLine("3", "resources/subscribe", `"uri":"test://hello"`),
			},
			want: []string{errLine("1", "-32601", "Method not found"), errLine("2", "-32601", "Method not found"), errLine("3", "-32601", "Method not found")},
		},
		{
			name:  "tools/list is cacheable",
			lines: []string{modernLine("1", "tools/list", `"cursor":""`)},
			want:  nil, // checked below: long, and its tools are TestSchemas's business
		},
		{
			name: "resources: read is private and stale at once; unknown is -32602",
			lines: []string{
				modernLine("1", "resources/list", ""),
				modernLine("2", "resources/read", `"uri":"test://hello"`),
				modernLine("3", "resources/read", `"uri":"test://nope"`),
				modernLine("4", "resources/templates/list", ""),
			},
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfoMeta + `,"ttlMs":3600000,"cacheScope":"public",` +
					`"resources":[{"uri":"test://hello","name":"hello","title":"Hello","description":"A greeting.","mimeType":"text/plain","icons":[{"src":"data:image/svg+xml;base64,PHN2Zy8+","mimeType":"image/svg+xml"}]}]}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + serverInfoMeta + `,"ttlMs":0,"cacheScope":"private",` +
					`"contents":[{"uri":"test://hello","mimeType":"text/plain","text":"hello, world"}]}}`,
				errLine("3", "-32602", "Invalid params: unknown resource; resources/list names them"),
				`{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete",` + serverInfoMeta + `,"ttlMs":3600000,"cacheScope":"public","resourceTemplates":[]}}`,
			},
		},
		{
			name:  "an unknown tool is a protocol error",
			lines: []string{modernLine("1", "tools/call", `"name":"nope","arguments":{}`)},
			want:  []string{errLine("1", "-32602", "Invalid params: unknown tool nope; tools/list names them")},
		},
		{
			name:  "prompts/get",
			lines: []string{modernLine("1", "prompts/get", `"name":"greet","arguments":{"name":"ada"}`)},
			want: []string{`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfoMeta + `,` +
				`"messages":[{"role":"user","content":{"type":"text","text":"Greet ada."}}]}}`},
		},
		{
			name:    "beside a legacy session, which is unchanged",
			version: "2025-06-18",
			lines: []string{
				modernLine("1", "tools/call", `"name":"echo","arguments":{"text":"a"}`),
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			},
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfoMeta + `,` +
					`"content":[{"type":"text","text":"echo: a"}],"structuredContent":{"echo":"a"}}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"echo: b"}],"structuredContent":{"echo":"b"}}}`,
				`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"unknown tool"}],"isError":true}}`,
			},
		},
		{
			name: "a legacy request before initialize is still refused",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
				modernLine("2", "tools/call", `"name":"echo","arguments":{"text":"a"}`),
				`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			},
			want: []string{
				errLine("1", "-32002", "Server not initialized"),
				`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + serverInfoMeta + `,` +
					`"content":[{"type":"text","text":"echo: a"}],"structuredContent":{"echo":"a"}}}`,
				`{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version: send one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (the 2025 versions through initialize)",` +
					`"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2025-11-25"}}}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testServer(t, &Options{Title: "Test server", Instructions: "Use the tools.", Icons: testIcons})
			got := runLines(t, s, tt.version, tt.lines)
			if tt.want == nil {
				checkToolsList(t, got, echoTool)
				return
			}
			if diff := sameMessages(t, tt.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

// checkToolsList checks a modern tools/list answer: cacheable, marked
// complete, and listing the echo tool first, as registered.
func checkToolsList(t *testing.T, got []string, echoTool string) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("got %d messages, want 1: %q", len(got), got)
	}
	var res struct {
		Result struct {
			ResultType string            `json:"resultType"`
			TTL        *int64            `json:"ttlMs"`
			Scope      string            `json:"cacheScope"`
			Tools      []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got[0]), &res); err != nil {
		t.Fatal(err)
	}
	if res.Result.ResultType != "complete" || res.Result.TTL == nil || *res.Result.TTL != 3600000 || res.Result.Scope != "public" || len(res.Result.Tools) == 0 {
		t.Fatalf("tools/list: %s; want resultType complete, ttlMs 3600000, cacheScope public and tools", got[0])
	}
	if diff := sameMessages(t, []string{echoTool}, []string{string(res.Result.Tools[0])}); diff != "" {
		t.Errorf("first tool (-want +got):\n%s", diff)
	}
}

// TestModernStatelessSessions checks that modern requests share no
// per-session state: each runs under a session id of its own, which
// ends with it, while a legacy session's calls share theirs.
func TestModernStatelessSessions(t *testing.T) {
	s := testServer(t, nil)
	ended := make(chan string, 16)
	s.OnSessionEnd(func(id string) { ended <- id })
	call := func(id string) string {
		return modernLine(id, "tools/call", `"name":"progress","arguments":{"steps":0}`)
	}
	got := runLines(t, s, "", []string{call("1"), call("2")})
	ids := map[string]bool{}
	for _, line := range got {
		var m struct {
			Result struct {
				StructuredContent struct {
					Echo string `json:"echo"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result.StructuredContent.Echo == "" {
			t.Fatalf("not a session id: %s", line)
		}
		ids[m.Result.StructuredContent.Echo] = true
	}
	if len(ids) != 2 {
		t.Fatalf("two modern calls ran under %d session ids, want 2 distinct: %v", len(ids), got)
	}
	close(ended)
	for id := range ended {
		delete(ids, id)
	}
	if len(ids) != 0 {
		t.Errorf("the sessions of modern calls %v never ended", ids)
	}
}

// TestModernLogLevel checks that a modern request gets log messages only
// when it sets a level, on its own stream, before its answer.
func TestModernLogLevel(t *testing.T) {
	s := NewServer("test", "v0", nil)
	if err := AddTool(s, Tool{Name: "logs", Title: "Logs", Description: "Logs, then answers.", Annotations: readOnlyHints()},
		func(ctx context.Context, in *struct{}) (*echoOut, error) {
			s.Log(LevelInfo, "gopls", "loading")
			s.Log(LevelError, "gopls", "broken")
			return &echoOut{Echo: "ok"}, nil
		}); err != nil {
		t.Fatal(err)
	}
	line := func(id, level string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"logs","arguments":{},` + modernMeta("2026-07-28", level) + `}}`
	}
	got := runLines(t, s, "", []string{line("1", "")})
	if len(got) != 1 {
		t.Errorf("without a log level: %d messages, want the answer alone: %q", len(got), got)
	}
	got = runLines(t, s, "", []string{line("2", "warning")})
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"gopls","data":"broken"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"v0"}},` +
			`"content":[{"type":"text","text":"echo: ok"}],"structuredContent":{"echo":"ok"}}}`,
	}
	// In this order: no message follows the answer.
	var norm []string
	for _, l := range append(want, got...) {
		var v any
		_ = json.Unmarshal([]byte(l), &v)
		b, _ := json.Marshal(v)
		norm = append(norm, string(b))
	}
	if diff := cmp.Diff(norm[:len(want)], norm[len(want):]); diff != "" {
		t.Errorf("with level warning (-want +got):\n%s", diff)
	}
}

// TestModernListen checks subscriptions/listen: acknowledged with what
// the server honours, held open, and closed gracefully when the input
// ends.
func TestModernListen(t *testing.T) {
	s := testServer(t, nil)
	got := runLines(t, s, "", []string{
		modernLine(`"l"`, "subscriptions/listen", `"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://hello"]}`),
	})
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"},"notifications":{"toolsListChanged":true}}}`,
		`{"jsonrpc":"2.0","id":"l","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"l","io.modelcontextprotocol/serverInfo":{"name":"test","version":"v0"}}}}`,
	}
	if diff := sameMessages(t, want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if len(got) == 2 && !strings.Contains(got[0], "acknowledged") {
		t.Errorf("the acknowledgement came after the closing result: %q", got)
	}
}

// TestModernHTTP checks the modern revision over HTTP: no session, the
// MCP headers checked against the body, 405 for GET and DELETE.
func TestModernHTTP(t *testing.T) {
	s := testServer(t, &Options{Title: "Test server", Instructions: "Use the tools.", Icons: testIcons})
	_, url := startHTTP(t, s, nil)
	p := &peer{t: t, url: url}
	hdr := func(method, name string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}
	echo := modernLine("1", "tools/call", `"name":"echo","arguments":{"text":"hi"}`)
	echoed := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + serverInfoMeta + `,"content":[{"type":"text","text":"echo: hi"}],"structuredContent":{"echo":"hi"}}}`
	tests := []struct {
		name       string
		method     string
		body       string
		hdr        map[string]string
		wantStatus int
		wantMsg    string
		wantInBody string
	}{
		{name: "discover", method: "POST", body: modernLine(`"d"`, "server/discover", ""), hdr: hdr("server/discover", ""), wantStatus: 200, wantMsg: discoverLine(`"d"`)},
		{name: "tools/call", method: "POST", body: echo, hdr: hdr("tools/call", "echo"), wantStatus: 200, wantMsg: echoed},
		{name: "Mcp-Name in base64", method: "POST", body: echo, hdr: hdr("tools/call", "=?base64?ZWNobw==?="), wantStatus: 200, wantMsg: echoed},
		{name: "a legacy session id is ignored", method: "POST", body: echo,
			hdr:        map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Mcp-Session-Id": "0123456789abcdef"},
			wantStatus: 200, wantMsg: echoed},
		{name: "no version header", method: "POST", body: echo, hdr: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "echo"}, wantStatus: 400, wantInBody: `"code":-32020`},
		{name: "version header disagrees", method: "POST", body: strings.Replace(echo, "2026-07-28", "2099-01-01", 1), hdr: hdr("tools/call", "echo"), wantStatus: 400, wantInBody: `"code":-32020`},
		{name: "method header disagrees", method: "POST", body: echo, hdr: hdr("tools/list", "echo"), wantStatus: 400, wantInBody: "Mcp-Method header"},
		{name: "no method header", method: "POST", body: echo, hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Name": "echo"}, wantStatus: 400, wantInBody: `"code":-32020`},
		{name: "name header disagrees", method: "POST", body: echo, hdr: hdr("tools/call", "fail"), wantStatus: 400, wantInBody: "Mcp-Name header"},
		{name: "no name header", method: "POST", body: echo, hdr: hdr("tools/call", ""), wantStatus: 400, wantInBody: "Mcp-Name header is missing"},
		{name: "unsupported version", method: "POST", body: strings.Replace(modernLine("1", "tools/list", ""), "2026-07-28", "2099-01-01", 1),
			hdr: map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"}, wantStatus: 400, wantInBody: `"code":-32022`},
		{name: "no capabilities", method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			hdr: hdr("tools/list", ""), wantStatus: 400, wantInBody: `"code":-32602`},
		{name: "unknown method", method: "POST", body: modernLine("1", "tools/nope", ""), hdr: hdr("tools/nope", ""), wantStatus: 404, wantInBody: `"code":-32601`},
		{name: "GET", method: "GET", hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28"}, wantStatus: 405},
		{name: "DELETE", method: "DELETE", hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28"}, wantStatus: 405},
		{name: "token still checked", method: "POST", body: echo, hdr: map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Authorization": ""}, wantStatus: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := p.do(context.Background(), tt.method, tt.body, tt.hdr)
			if a.status != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", a.status, tt.wantStatus, a.body)
			}
			if sid := a.header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("a modern answer carries Mcp-Session-Id %q", sid)
			}
			if tt.wantMsg != "" {
				if diff := sameMessages(t, []string{tt.wantMsg}, a.msgs); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			}
			if !strings.Contains(a.body, tt.wantInBody) {
				t.Errorf("body %s does not say %s", a.body, tt.wantInBody)
			}
		})
	}
	if a := p.do(context.Background(), http.MethodGet, "", nil); a.status == http.StatusMethodNotAllowed {
		t.Errorf("a GET without a modern version header got 405; legacy clients get the legacy answer")
	}
}
