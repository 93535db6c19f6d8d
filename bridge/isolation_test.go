package bridge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const httpToken = "isolation-test-token-0123456789"

// bearer adds the token to every request.
type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+httpToken)
	return b.next.RoundTrip(r)
}

// httpStack is the whole server in-process on a root, served over HTTP,
// with the gopls client for looking behind the scenes.
type httpStack struct {
	url    string
	client *lspclient.Client
}

func startHTTPStack(t *testing.T, root string) *httpStack {
	t.Helper()
	gopls := testGopls(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := mcp.NewServer("goplsmcp", "test", nil)
	client, err := lspclient.Start(ctx, lspclient.Options{Gopls: gopls, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	br, err := bridge.New(bridge.Config{Root: root, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := br.Register(srv); err != nil {
		t.Fatal(err)
	}
	h, err := srv.NewHTTPHandler(&mcp.HTTPOptions{Token: httpToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		client.Close()
	})
	return &httpStack{url: ts.URL + mcp.HTTPPath, client: client}
}

// connect opens a session with the official Go SDK client, at 2025-11-25:
// sessions, whose unsaved text lasts, are what is isolated here (a
// 2026-07-28 request keeps nothing between calls).
func (hs *httpStack) connect(t *testing.T) *mcpsdk.ClientSession {
	t.Helper()
	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "isolation", Version: "0"}, nil)
	transport := &mcpsdk.StreamableClientTransport{
		Endpoint:   hs.url,
		HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}},
	}
	cs, err := c.Connect(testCtx(t), transport, &mcpsdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out; a tool
// error fails the test.
func call[T any](t *testing.T, cs *mcpsdk.ClientSession, tool string, args map[string]any) *T {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, toolText(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: decoding %s: %v", tool, data, err)
	}
	return &out
}

// callErr calls a tool that must fail, and returns its message.
func callErr(t *testing.T, cs *mcpsdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v succeeded, want a tool error: %s", tool, args, toolText(res))
	}
	return toolText(res)
}

func toolText(res *mcpsdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// diagnosedFiles lists the files with diagnostics, each once.
func diagnosedFiles(out *bridge.DiagnosticsOutput) []string {
	files := slices.Clone(out.Files.Keys())
	slices.Sort(files)
	return files
}

func refFiles(out *bridge.ReferencesOutput) []string {
	files := slices.Clone(out.Refs.Keys())
	for _, f := range out.More.Keys() {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files
}

// placeCount counts the places of a list.
func placeCount(p *bridge.Places) int {
	n := 0
	p.All(func(_ string, at []string) { n += len(at) })
	return n
}

// diffFiles lists the files a unified diff changes, each once, sorted.
func diffFiles(diff string) []string {
	var files []string
	for _, line := range strings.Split(diff, "\n") {
		if f, ok := strings.CutPrefix(line, "+++ b/"); ok && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files
}

// TestSessionIsolation checks docs/safety.md's isolation: two HTTP sessions share one
// gopls, but neither sees the other's unsaved files or snippets. Session
// A gives main.go unsaved text with a type error and a new use of
// shapes.TotalArea, and makes a snippet that uses it too; B's workspace
// diagnostics, references, symbol search and rename all reflect the disk
// alone, B cannot reach A's snippet by any name, while A keeps seeing its
// own buffers, and all of that stays true with calls of both sessions
// running at once. When A ends, gopls holds none of its buffers.
func TestSessionIsolation(t *testing.T) {
	root := exampleRoot(t)
	hs := startHTTPStack(t, root)
	a, b := hs.connect(t), hs.connect(t)

	disk, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	overlay := string(disk) + "\nvar bad int = \"not an int\"\n\nvar extra = shapes.TotalArea()\n"
	totalArea := map[string]any{"file": "shapes/shapes.go", "symbol": "TotalArea"}
	workspace := map[string]any{}

	// What each session must see.
	checkA := func(t *testing.T) {
		t.Helper()
		if got := diagnosedFiles(call[bridge.DiagnosticsOutput](t, a, "go_diagnostics", workspace)); !slices.Contains(got, "main.go") {
			t.Errorf("A's workspace diagnostics are in %v: want main.go, its unsaved text's type error", got)
		}
		refs := call[bridge.ReferencesOutput](t, a, "go_symbol_references", totalArea)
		if got := refFiles(refs); !slices.Contains(got, "main.go") || !slices.ContainsFunc(got, isScratch) {
			t.Errorf("A's references to TotalArea are in %v: want its unsaved main.go and its snippet too", got)
		}
	}
	checkB := func(t *testing.T) {
		t.Helper()
		if diff := cmp.Diff([]string{"broken/broken.go"}, diagnosedFiles(call[bridge.DiagnosticsOutput](t, b, "go_diagnostics", workspace))); diff != "" {
			t.Errorf("B's workspace diagnostics: files (-want +got):\n%s", diff)
		}
		refs := call[bridge.ReferencesOutput](t, b, "go_symbol_references", totalArea)
		// Its use in report.go, and its declaration.
		if diff := cmp.Diff([]string{"report/report.go", "shapes/shapes.go"}, refFiles(refs)); diff != "" || placeCount(&refs.Refs) != 2 {
			t.Errorf("B's references to TotalArea (%d), files (-want +got):\n%s", placeCount(&refs.Refs), diff)
		}
	}

	// A's unsaved text and its snippet.
	d := call[bridge.DiagnosticsOutput](t, a, "go_diagnostics", map[string]any{"file": "main.go", "text": overlay})
	if f, _ := d.Files.Get("main.go"); !slices.ContainsFunc(f.At, func(d string) bool { return strings.Contains(d, "cannot use") }) {
		t.Fatalf("A's unsaved main.go: %+v, want its type error", f.At)
	}
	snippet := call[bridge.DiagnosticsOutput](t, a, "go_diagnostics", map[string]any{
		"text": "package scratch\n\nimport \"example.com/shapes/shapes\"\n\nfunc SnippetOnly() float64 { return shapes.TotalArea() }\n"})
	if snippet.URI == "" || snippet.Files.Len() != 0 {
		t.Fatalf("A's snippet: %+v", snippet)
	}
	snippetPath, err := lspclient.URIPath(snippet.URI)
	if err != nil {
		t.Fatal(err)
	}
	snippetFile, _ := filepath.Rel(root, snippetPath)

	checkB(t)
	checkA(t)
	checkB(t)

	// Symbol search: A's snippet is A's alone.
	if got := call[bridge.SearchOutput](t, b, "go_search", map[string]any{"query": "SnippetOnly"}); placeCount(&got.Symbols) != 0 {
		t.Errorf("B's search found A's snippet: %+v", got.Symbols)
	}
	if got := call[bridge.SearchOutput](t, a, "go_search", map[string]any{"query": "SnippetOnly"}); placeCount(&got.Symbols) != 1 {
		t.Errorf("A's search for its own snippet: %+v", got.Symbols)
	}
	// A rename by B edits no buffer of A's.
	rn := call[bridge.RenameOutput](t, b, "go_rename_symbol", map[string]any{"file": "shapes/shapes.go", "symbol": "TotalArea", "new_name": "Sum"})
	if diff := cmp.Diff([]string{"report/report.go", "shapes/shapes.go"}, diffFiles(rn.Diff)); diff != "" {
		t.Errorf("B's rename edits files (-want +got):\n%s", diff)
	}
	// B cannot reach A's snippet by its uri, its path, or go_close.
	for _, args := range []map[string]any{
		{"uri": snippet.URI},
		{"file": snippetFile},
		{"file": snippetFile, "text": "package stolen\n"},
	} {
		if msg := callErr(t, b, "go_diagnostics", args); !strings.Contains(msg, "not open") && !strings.Contains(msg, "does not exist") {
			t.Errorf("B naming A's snippet with %v: %q", args, msg)
		}
	}
	if got := call[bridge.CloseOutput](t, b, "go_close", map[string]any{"uri": snippet.URI}); got.Closed != "" {
		t.Errorf("B closed A's snippet: %+v", got)
	}
	if _, _, open := hs.client.Document(snippet.URI); !open {
		t.Errorf("A's snippet is no longer open after B's go_close")
	}

	// Both sessions at once: each keeps its own view.
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			if i%2 == 0 {
				checkA(t)
			} else {
				checkB(t)
			}
		})
	}
	wg.Wait()

	// A ends: gopls drops its buffers.
	mainURI := lspclient.FileURI(filepath.Join(root, "main.go"))
	if err := a.Close(); err != nil {
		t.Fatalf("closing A: %v", err)
	}
	if text, _, open := hs.client.Document(mainURI); open && text != string(disk) {
		t.Errorf("after A ended, gopls still holds its unsaved main.go")
	}
	if _, _, open := hs.client.Document(snippet.URI); open {
		t.Errorf("after A ended, gopls still holds its snippet")
	}
	checkB(t)
}

func isScratch(file string) bool { return strings.HasPrefix(file, ".goplsmcp/scratch/") }
