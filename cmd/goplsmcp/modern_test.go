package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// modernMeta is the _meta of a 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`

// TestModernRawLines speaks 2026-07-28 to the real binary in raw lines,
// with no handshake: server/discover first, a tools/call, a version it
// does not speak; then a 2025 session on the same stdin, which must be
// answered exactly as before (no resultType, no _meta, an unknown tool a
// tool error), while modern requests keep being served beside it and
// keep nothing between calls.
func TestModernRawLines(t *testing.T) {
	s := &session{proc: startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t))}
	req := func(id int, method, params string) map[string]any {
		t.Helper()
		if params != "" {
			params += ","
		}
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, modernMeta))
		return s.await(json.RawMessage(fmt.Sprint(id)))
	}
	result := func(what string, m map[string]any) map[string]any {
		t.Helper()
		res, ok := m["result"].(map[string]any)
		if !ok {
			t.Fatalf("%s: not a result: %.300v", what, m)
		}
		return res
	}
	modern := func(what string, res map[string]any) {
		t.Helper()
		meta, _ := res["_meta"].(map[string]any)
		info, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
		if res["resultType"] != "complete" || info["name"] != "goplsmcp" {
			t.Errorf("%s: resultType %v, serverInfo %v; want complete and goplsmcp", what, res["resultType"], info)
		}
	}

	d := result("server/discover", req(1, "server/discover", ""))
	modern("server/discover", d)
	versions, _ := d["supportedVersions"].([]any)
	if !slices.Contains(versions, any("2026-07-28")) || !slices.Contains(versions, any("2025-11-25")) {
		t.Errorf("supportedVersions %v, want 2026-07-28 and the 2025 versions", versions)
	}
	if caps, _ := d["capabilities"].(map[string]any); caps["tools"] == nil {
		t.Errorf("capabilities %v: no tools", d["capabilities"])
	}

	describe := `"name":"go_describe","arguments":{"file":"shapes/shapes.go","symbol":"Rect.Area"}`
	const areaDoc = "func (r Rect) Area() float64\nArea returns the rectangle's area."
	res := result("modern tools/call", req(2, "tools/call", describe))
	modern("tools/call", res)
	if text := toolText(res); text != areaDoc || res["structuredContent"] == nil {
		t.Errorf("modern go_describe: %q, structuredContent %v", text, res["structuredContent"] != nil)
	}

	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	m := s.await(json.RawMessage("3"))
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	supported, _ := data["supported"].([]any)
	if e["code"] != float64(-32022) || data["requested"] != "1900-01-01" || !slices.Contains(supported, any("2026-07-28")) {
		t.Errorf("an unsupported version: %v; want -32022 with supported and requested", m)
	}

	// A 2025 session, on the same stdin.
	s.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`)
	init := result("initialize", s.await(json.RawMessage("4")))
	if init["protocolVersion"] != "2025-06-18" || init["resultType"] != nil || init["_meta"] != nil {
		t.Errorf("initialize: %v; want 2025-06-18 and nothing of 2026-07-28", init)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + describe + `}}`)
	legacy := result("legacy tools/call", s.await(json.RawMessage("5")))
	if text := toolText(legacy); text != areaDoc || legacy["structuredContent"] == nil || legacy["resultType"] != nil || legacy["_meta"] != nil {
		t.Errorf("legacy go_describe: %v; want the text, structuredContent, and no resultType or _meta", legacy)
	}
	s.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"go_nope","arguments":{}}}`)
	if nope := result("legacy unknown tool", s.await(json.RawMessage("6"))); nope["isError"] != true {
		t.Errorf("legacy unknown tool: %v; want a tool error, as ever", nope)
	}
	if m := req(7, "tools/call", `"name":"go_nope","arguments":{}`); m["error"] == nil {
		t.Errorf("modern unknown tool: %v; want -32602", m)
	}

	// Unsaved text given in one modern call is not seen by the next.
	bad := `"name":"go_diagnostics","arguments":{"file":"main.go","text":"package main\n\nfunc main() { var x int = \"no\" }\n"}`
	if text := toolText(result("modern unsaved text", req(8, "tools/call", bad))); !strings.Contains(text, `cannot use "no"`) {
		t.Errorf("diagnostics of the unsaved text: %q; want its type error", text)
	}
	if text := toolText(result("modern diagnostics after", req(9, "tools/call", `"name":"go_diagnostics","arguments":{"files":["main.go"]}`))); strings.Contains(text, `"no"`) {
		t.Errorf("the next modern call saw the previous call's unsaved text: %q", text)
	}
}

// toolText is the first text of a tool result.
func toolText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}
