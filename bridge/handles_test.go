package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestModernHandleIsTheTokens serves one server over HTTP behind two
// tokens, as two clients would hold them: a handle minted with one token
// shows its unsaved text to later calls with that token, and
// is refused with the other (that token's endpoint on the same server),
// in the same words as a made-up one.
func TestModernHandleIsTheTokens(t *testing.T) {
	root := exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := mcp.NewServer("goplsmcp", "test", nil)
	client, err := lspclient.Start(ctx, lspclient.Options{Gopls: testGopls(t), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	br, err := bridge.New(bridge.Config{Root: root, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := br.Register(srv); err != nil {
		t.Fatal(err)
	}
	tokens := []string{"handle-test-token-aaaaaaaaaaaa", "handle-test-token-bbbbbbbbbbbb"}
	var urls []string
	for _, tok := range tokens {
		h, err := srv.NewHTTPHandler(&mcp.HTTPOptions{Token: tok})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Close()
			ts.Close()
		})
		urls = append(urls, ts.URL+mcp.HTTPPath)
	}
	// call posts a modern tools/call with tokens[at] to its endpoint.
	call := func(at int, tool, args string) (text string, isError bool, sc map[string]any) {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, tool, args)
		req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, urls[at], bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{
			"Authorization": "Bearer " + tokens[at], "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool,
		} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var m struct {
			Result struct {
				Content           []mcp.Content  `json:"content"`
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &m) != nil || len(m.Result.Content) == 0 {
			t.Fatalf("%s: %s %s", tool, resp.Status, data)
		}
		return m.Result.Content[0].Text, m.Result.IsError, m.Result.StructuredContent
	}

	const importerError = "undefined: report.Summary"
	_, _, sc := call(0, "go_diagnostics", `{"file":"report/report.go","text":"package report\n\nvar X int = \"s\"\n"}`)
	handle, _ := sc["handle"].(string)
	if handle == "" {
		t.Fatalf("unsaved text given over HTTP: no handle in %v", sc)
	}
	seeMain := fmt.Sprintf(`{"file":"main.go","handle":%q}`, handle)
	if text, isErr, _ := call(0, "go_diagnostics", seeMain); isErr || !strings.Contains(text, importerError) {
		t.Errorf("the handle with its own token: %q; want main.go's error from the unsaved report.go", text)
	}
	foreign, isErr, _ := call(1, "go_diagnostics", seeMain)
	if !isErr || strings.Contains(foreign, importerError) {
		t.Fatalf("the handle with another token: %q, isError %v; want it refused", foreign, isErr)
	}
	// Of this server's run (its prefix), but never minted.
	epoch, _, _ := strings.Cut(handle, ".")
	madeUp := epoch + "." + strings.Repeat("0", 32)
	unknown, _, _ := call(0, "go_diagnostics", fmt.Sprintf(`{"file":"main.go","handle":%q}`, madeUp))
	if strings.ReplaceAll(foreign, handle, "H") != strings.ReplaceAll(unknown, madeUp, "H") {
		t.Errorf("a foreign handle is refused as %q, a made-up one as %q; want the same words", foreign, unknown)
	}
}

// TestHandleBoundedInBytes gives one handle's session snippets of
// 500 KB each, the most one text may be, until the unsaved text it keeps
// would pass bridge.MaxKeptText: that text is refused in one sentence
// naming the bound, what the handle kept stays seen, and once a snippet
// is closed the text is kept.
func TestHandleBoundedInBytes(t *testing.T) {
	root := exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := mcp.NewServer("goplsmcp", "test", nil)
	client, err := lspclient.Start(ctx, lspclient.Options{Gopls: testGopls(t), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	br, err := bridge.New(bridge.Config{Root: root, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := br.Register(srv); err != nil {
		t.Fatal(err)
	}
	st := &stack{server: srv}
	c := st.session(t, "")
	call := func(tool string, args map[string]any) *mcp.ToolResultJSON {
		t.Helper()
		var res mcp.ToolResultJSON
		err := c.Call(testCtx(t), "tools/call", map[string]any{
			"name": tool, "arguments": args,
			"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
		}, &res)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return &res
	}
	// snippet is a whole file of about 500 KB with a type error.
	const size = 500_000
	snippet := func(n int) string {
		head := fmt.Sprintf("package scratch\n\nvar V%d int = \"s\"\n", n)
		line := "// " + strings.Repeat("x", 76) + "\n"
		return head + strings.Repeat(line, (size-len(head))/len(line))
	}
	if n := len(snippet(1)); n > bridge.DefaultTextChars || bridge.MaxKeptText/n < 2 {
		t.Fatalf("a snippet has %d bytes; want at most %d and at least two under %d", n, bridge.DefaultTextChars, bridge.MaxKeptText)
	}
	first := call("go_diagnostics", map[string]any{"text": snippet(0)})
	var sc struct {
		Handle string `json:"handle"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(first.StructuredContent, &sc); err != nil || sc.Handle == "" || first.IsError {
		t.Fatalf("the first snippet: no handle (%v): %s %s", err, first.Text(), first.StructuredContent)
	}
	fits := bridge.MaxKeptText / len(snippet(0))
	for i := 1; i < fits; i++ {
		if res := call("go_diagnostics", map[string]any{"text": snippet(i), "handle": sc.Handle}); res.IsError {
			t.Fatalf("snippet %d of %d under the bound: %s", i+1, fits, res.Text())
		}
	}
	over := call("go_diagnostics", map[string]any{"text": snippet(fits), "handle": sc.Handle})
	const bound = "more than the 8 MiB allowed"
	if !over.IsError || !strings.Contains(over.Text(), bound) || strings.Count(strings.TrimSpace(over.Text()), ". ") > 0 {
		t.Fatalf("snippet %d, past %d bytes kept: %q, isError %v; want one sentence saying %q", fits+1, bridge.MaxKeptText, over.Text(), over.IsError, bound)
	}
	t.Logf("refused: %s", over.Text())
	if res := call("go_diagnostics", map[string]any{"text": snippet(fits), "handle": sc.Handle}); !res.IsError {
		t.Fatalf("the same snippet again: kept; want refused")
	}
	// What the handle kept is still seen, and closing a snippet makes
	// room.
	if res := call("go_diagnostics", map[string]any{"uri": sc.URI, "handle": sc.Handle}); res.IsError || !strings.Contains(res.Text(), `cannot use "s"`) {
		t.Errorf("the first snippet under the handle after the refusal: %q; want its error", res.Text())
	}
	if res := call("go_close", map[string]any{"uri": sc.URI, "handle": sc.Handle}); res.IsError {
		t.Fatalf("go_close of the first snippet: %s", res.Text())
	}
	if res := call("go_diagnostics", map[string]any{"text": snippet(fits), "handle": sc.Handle}); res.IsError {
		t.Errorf("the refused snippet once another is closed: %s", res.Text())
	}
}
