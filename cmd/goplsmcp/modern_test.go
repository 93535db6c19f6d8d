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

// TestModernHandles keeps unsaved text across 2026-07-28 requests by
// handle, through the real binary: the call that gives it is answered
// with a handle, a later call sees it only by passing the handle,
// go_close forgets it, a made-up one is refused, the table's bound
// forgets the handle unused longest, and none of it reaches a 2025
// session on the same stdin.
func TestModernHandles(t *testing.T) {
	s := &session{proc: startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t))}
	id := 0
	req := func(method, params string) map[string]any {
		t.Helper()
		id++
		if params != "" {
			params += ","
		}
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, modernMeta))
		m := s.await(json.RawMessage(fmt.Sprint(id)))
		res, ok := m["result"].(map[string]any)
		if !ok {
			t.Fatalf("%s: not a result: %.300v", method, m)
		}
		return res
	}
	call := func(tool, args string) (text string, res map[string]any) {
		t.Helper()
		res = req("tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args))
		return toolText(res), res
	}
	handleOf := func(what string, res map[string]any) string {
		t.Helper()
		sc, _ := res["structuredContent"].(map[string]any)
		h, _ := sc["handle"].(string)
		if h == "" || !strings.Contains(toolText(res), "handle: "+h+" (") {
			t.Fatalf("%s: no handle in structuredContent and text: %.400v", what, res)
		}
		return h
	}
	// Unsaved text of report.go that drops what main.go uses: main.go's
	// diagnostics then say so, as long as the call sees that text.
	const (
		bad     = `{"file":"report/report.go","text":"package report\n\nvar X int = \"s\"\n"}`
		unsaved = `undefined: report.Summary`
	)
	seeMain := func(handle string) string { return fmt.Sprintf(`{"file":"main.go","handle":%q}`, handle) }

	// Modern schemas declare the handle; 2025 ones do not.
	list := req("tools/list", "")
	tools, _ := list["tools"].([]any)
	first, _ := tools[0].(map[string]any)
	props := func(schema string) map[string]any {
		s, _ := first[schema].(map[string]any)
		p, _ := s["properties"].(map[string]any)
		return p
	}
	if props("inputSchema")["handle"] == nil || props("outputSchema")["handle"] == nil {
		t.Errorf("modern tools/list: %v's schemas declare no handle", first["name"])
	}

	text, res := call("go_diagnostics", bad)
	if !strings.Contains(text, `cannot use "s"`) || !strings.Contains(text, unsaved) {
		t.Fatalf("diagnostics of the unsaved text: %q", text)
	}
	h := handleOf("file with text", res)
	if text, _ := call("go_diagnostics", seeMain(h)); !strings.Contains(text, unsaved) {
		t.Errorf("a call with the handle does not see its unsaved text: %q", text)
	}
	if text, _ := call("go_diagnostics", `{"file":"main.go"}`); strings.Contains(text, unsaved) {
		t.Errorf("a call without the handle sees its unsaved text: %q", text)
	}
	// A call that gives nothing unsaved gets no handle.
	if _, res := call("go_describe", `{"file":"shapes/shapes.go","symbol":"Rect.Area"}`); strings.Contains(toolText(res), "handle:") {
		t.Errorf("a call without unsaved text got a handle: %.300v", res)
	}

	// A 2025 session on the same stdin knows nothing of handles.
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`)
	s.await(json.RawMessage(`"init"`))
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":"old","method":"tools/call","params":{"name":"go_diagnostics","arguments":` + seeMain(h) + `}}`)
	if old, _ := s.await(json.RawMessage(`"old"`))["result"].(map[string]any); old["isError"] != true || !strings.Contains(toolText(old), "unknown arguments") {
		t.Errorf("a 2025 call with handle: %v; want its unknown argument refused, as ever", old)
	}

	if text, _ := call("go_close", fmt.Sprintf(`{"handle":%q}`, h)); text != "forgot handle "+h+"; all the unsaved text it held is forgotten" {
		t.Errorf("go_close of the handle: %q", text)
	}
	for what, handle := range map[string]string{"closed": h, "made-up": strings.Repeat("0", 8) + "." + strings.Repeat("1", 32)} {
		text, res := call("go_diagnostics", seeMain(handle))
		if res["isError"] != true || !strings.Contains(text, "is unknown") && !strings.Contains(text, "earlier run") {
			t.Errorf("a %s handle: %q, isError %v; want it refused", what, text, res["isError"])
		}
	}

	// The table keeps bridge.MaxHandles (64): one more forgets the one
	// unused longest.
	var minted []string
	for i := range 65 {
		_, res := call("go_format", fmt.Sprintf(`{"text":"package p\n\nfunc F%d() {  }\n"}`, i))
		minted = append(minted, handleOf("snippet", res))
	}
	if text, res := call("go_format", fmt.Sprintf(`{"file":"main.go","handle":%q}`, minted[0])); res["isError"] != true || !strings.Contains(text, "is unknown") {
		t.Errorf("the oldest of 65 handles: %q; want it evicted", text)
	}
	if _, res := call("go_format", fmt.Sprintf(`{"file":"main.go","handle":%q}`, minted[64])); res["isError"] == true {
		t.Errorf("the newest of 65 handles: %v; want it kept", res)
	}
}
