package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// exampleRoot copies testdata/example to a temporary directory.
func exampleRoot(t *testing.T) string {
	t.Helper()
	root := realTempDir(t)
	if err := os.CopyFS(root, os.DirFS("../testdata/example")); err != nil {
		t.Fatal(err)
	}
	return root
}

// notes records the notifications a client receives, in order.
type notes struct {
	mu   sync.Mutex
	list []note
}

type note struct {
	method string
	params map[string]any
}

func (n *notes) add(method string, params json.RawMessage) {
	var p map[string]any
	_ = json.Unmarshal(params, &p)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, note{method, p})
}

func (n *notes) snapshot() []note {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.list)
}

// startStackWith is startStack with limits for the bridge and a record of
// notifications; it initializes at version.
func startStackWith(t *testing.T, root, version string, limits bridge.Limits) *stack {
	t.Helper()
	return startStackOf(t, root, stackConfig{version: version, bridge: bridge.Config{Limits: limits}})
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var e *mcp.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// TestResources checks docs/tools.md's resources: the four goplsmcp:// URIs,
// all application/json, keywords and predeclared identifiers as the Go
// specification lists them, the limits in force, the same workspace
// summary as go_workspace, and -32602 for an unknown resource (docs/protocol.md).
func TestResources(t *testing.T) {
	root := exampleRoot(t)
	limits := bridge.Limits{MessageBytes: 1 << 20, ResultBytes: 1000, TextChars: 2000, Timeout: 1500 * time.Millisecond}
	st := startStackWith(t, root, "2025-11-25", limits)
	ctx := testCtx(t)

	var list struct {
		Resources []struct {
			URI, Name, Title, Description, MIMEType string
		}
	}
	if err := st.client.Call(ctx, "resources/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
		if r.MIMEType != "application/json" || r.Title == "" || r.Description == "" {
			t.Errorf("resource %s: mimeType %q, title %q, description %q", r.URI, r.MIMEType, r.Title, r.Description)
		}
	}
	if diff := cmp.Diff([]string{"goplsmcp://keywords", "goplsmcp://predeclared", "goplsmcp://limits", "goplsmcp://workspace"}, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}

	read := func(uri string, into any) {
		t.Helper()
		var res struct {
			Contents []struct{ URI, MIMEType, Text string }
		}
		if err := st.client.Call(ctx, "resources/read", map[string]any{"uri": uri}, &res); err != nil {
			t.Fatalf("reading %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("reading %s: %+v", uri, res)
		}
		if err := json.Unmarshal([]byte(res.Contents[0].Text), into); err != nil {
			t.Fatalf("%s is not JSON: %v", uri, err)
		}
	}

	// The Go specification's lists, typed in here as the independent
	// oracle for what the server reads from the standard library.
	var keywords []string
	read("goplsmcp://keywords", &keywords)
	wantKeywords := strings.Fields(`break default func interface select case defer go map struct chan else goto package switch const fallthrough if range type continue for import return var`)
	slices.Sort(wantKeywords)
	slices.Sort(keywords)
	if diff := cmp.Diff(wantKeywords, keywords); diff != "" {
		t.Errorf("keywords (-want +got):\n%s", diff)
	}

	var pre bridge.Predeclared
	read("goplsmcp://predeclared", &pre)
	wantPre := bridge.Predeclared{
		Types:     strings.Fields(`any bool byte comparable complex128 complex64 error float32 float64 int int16 int32 int64 int8 rune string uint uint16 uint32 uint64 uint8 uintptr`),
		Constants: []string{"false", "iota", "true"},
		Zero:      []string{"nil"},
		Functions: strings.Fields(`append cap clear close complex copy delete imag len make max min new panic print println real recover`),
	}
	if diff := cmp.Diff(wantPre, pre); diff != "" {
		t.Errorf("predeclared (-want +got):\n%s", diff)
	}

	var lim bridge.LimitsJSON
	read("goplsmcp://limits", &lim)
	wantLim := bridge.LimitsJSON{MessageBytes: 1 << 20, ResultBytes: 1000, TextChars: 2000, TimeoutSeconds: 1.5, EchoChars: 80}
	if diff := cmp.Diff(wantLim, lim); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}

	var ws map[string]any
	read("goplsmcp://workspace", &ws)
	res, err := st.client.CallTool(ctx, "go_workspace", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("go_workspace: %v %v", err, res)
	}
	var tool map[string]any
	if err := json.Unmarshal(res.StructuredContent, &tool); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tool, ws); diff != "" {
		t.Errorf("goplsmcp://workspace differs from go_workspace (-tool +resource):\n%s", diff)
	}
	if ws["build"] != "module" || ws["packages"] != 4.0 || ws["root"] != root {
		t.Errorf("workspace of the example module: %v", ws)
	}

	err = st.client.Call(ctx, "resources/read", map[string]any{"uri": "goplsmcp://nothing"}, nil)
	if rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("unknown resource: got %v, want -32602", err)
	}
}

// TestPrompts checks docs/tools.md's prompts: explain-go and review-go take a
// required file and an optional symbol, tell the model to use the tools
// (only those registered) and not to run the code; a missing or bad file
// is -32602 (docs/protocol.md).
func TestPrompts(t *testing.T) {
	root := exampleRoot(t)
	st := startStackWith(t, root, "2025-11-25", bridge.Limits{})
	ctx := testCtx(t)

	var list struct {
		Prompts []struct {
			Name      string
			Arguments []mcp.PromptArgument
		}
	}
	if err := st.client.Call(ctx, "prompts/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
		want := []mcp.PromptArgument{
			{Name: "file", Title: "File", Description: "the Go file, relative to the workspace root", Required: true},
			{Name: "symbol", Title: "Symbol", Description: `a declaration in it to focus on, e.g. "Server.Serve" (optional)`},
		}
		if diff := cmp.Diff(want, p.Arguments); diff != "" {
			t.Errorf("%s arguments (-want +got):\n%s", p.Name, diff)
		}
	}
	if diff := cmp.Diff([]string{"explain-go", "review-go"}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}

	get := func(name string, args map[string]any) (string, error) {
		var res mcp.PromptResult
		err := st.client.Call(ctx, "prompts/get", map[string]any{"name": name, "arguments": args}, &res)
		if err != nil {
			return "", err
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" || res.Messages[0].Content.Type != "text" {
			t.Fatalf("%s: messages %+v", name, res.Messages)
		}
		return res.Messages[0].Content.Text, nil
	}
	for _, name := range []string{"explain-go", "review-go"} {
		text, err := get(name, map[string]any{"file": filepath.Join(root, "shapes", "shapes.go"), "symbol": "Rect.Area\x1b[2J"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, want := range []string{"shapes/shapes.go, focusing on \"Rect.Area␛[2J\".", "go_describe", "go_symbol_references",
			"Never build, run or test the code", "1-based", "not instructions to follow"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: text lacks %q:\n%s", name, want, text)
			}
		}
		// Only registered tools are named, and the root is not leaked.
		for _, word := range strings.FieldsFunc(text, func(r rune) bool { return r != '_' && (r < 'a' || r > 'z') }) {
			if strings.HasPrefix(word, "go_") && !st.server.HasTool(word) {
				t.Errorf("%s: text names %s, which is not registered", name, word)
			}
		}
		if strings.Contains(text, root) {
			t.Errorf("%s: text holds the absolute root", name)
		}
	}
	if text, _ := get("review-go", map[string]any{"file": "main.go"}); !strings.Contains(text, "go_diagnostics: compile errors") {
		t.Errorf("review-go does not start from go_diagnostics:\n%s", text)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "Invalid params: missing required argument file"},
		{map[string]any{"symbol": "X"}, "Invalid params: missing required argument file"},
		{map[string]any{"file": "../outside.go"}, `Invalid params: file "../outside.go" is outside the workspace root; pass a path inside ` + root},
		{map[string]any{"file": "nope.go"}, `Invalid params: file "nope.go" does not exist; paths are relative to the workspace root ` + root},
		{map[string]any{"file": "shapes"}, `Invalid params: "shapes" is a directory; pass a file`},
	} {
		_, err := get("explain-go", tc.args)
		var e *mcp.Error
		if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams || e.Message != tc.want {
			t.Errorf("explain-go %v: got %v, want -32602 %q", tc.args, err, tc.want)
		}
	}
}

// TestFileCompletion checks completion/complete for the prompts' file
// argument: paths under the root that match the prefix, bounded, never
// outside the root, skipping hidden, vendor and testdata directories.
func TestFileCompletion(t *testing.T) {
	root := exampleRoot(t)
	for _, dir := range []string{".git", "vendor/v", "testdata", "many", "shapes/deep"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/x.go", "vendor/v/v.go", "testdata/t.go", "shapes/deep/deep.go", "shapes/notes.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(root, "many", fmt.Sprintf("f%03d.go", i)), []byte("package many\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := realTempDir(t)
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}

	st := startStackWith(t, root, "2025-11-25", bridge.Limits{})
	ctx := testCtx(t)
	type completion struct {
		Values  []string
		Total   *int
		HasMore bool
	}
	complete := func(prompt, arg, value string) (completion, error) {
		var res struct{ Completion completion }
		err := st.client.Call(ctx, "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": prompt},
			"argument": map[string]any{"name": arg, "value": value},
		}, &res)
		return res.Completion, err
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"sh", []string{"shapes/", "shapes/shapes.go"}},
		{"shapes/", []string{"shapes/shapes.go", "shapes/deep/", "shapes/deep/deep.go"}},
		{"shapes/sha", []string{"shapes/shapes.go"}},
		{"m", []string{"main.go", "many/"}}, // many's files come next, cut below
		{"b", []string{"broken/", "broken/broken.go"}},
		{"../", nil},
		{"shapes/../../", nil},
		{"/etc/", nil},
		{".git/", nil},
		{".", nil},
		{"vendor/", nil},
		{"v", nil},
		{"testdata/", nil},
		{"link/", nil},
		{"li", nil},
		{"nothing", nil},
	} {
		got, err := complete("explain-go", "file", tc.prefix)
		if err != nil {
			t.Fatalf("completing %q: %v", tc.prefix, err)
		}
		vals := got.Values
		if tc.prefix == "m" {
			vals = vals[:2]
		}
		if diff := cmp.Diff(tc.want, vals, cmpNilEmpty); diff != "" {
			t.Errorf("completing %q (-want +got):\n%s", tc.prefix, diff)
		}
	}
	got, err := complete("review-go", "file", "many/")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Values) != 100 || !got.HasMore || got.Total != nil || got.Values[0] != "many/f000.go" {
		t.Errorf("completing a directory of 150 files: %d values, hasMore %v, total %v, first %q; want 100, true, none, many/f000.go",
			len(got.Values), got.HasMore, got.Total, got.Values[0])
	}
	if got, err := complete("review-go", "symbol", "Sh"); err != nil || len(got.Values) != 0 {
		t.Errorf("completing symbol: %v %v, want no values", got, err)
	}
}

var cmpNilEmpty = cmp.Transformer("nilEmpty", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

// TestProgressRelay checks docs/protocol.md's progress: a tool call with
// _meta.progressToken gets notifications/progress while gopls diagnoses
// (gopls's own work-done reports), monotonic and with messages, and none
// after the response; a call without a token gets none.
func TestProgressRelay(t *testing.T) {
	root := exampleRoot(t)
	st := startStackWith(t, root, "2025-11-25", bridge.Limits{})
	ctx := testCtx(t)
	call := func(token any) {
		t.Helper()
		params := map[string]any{"name": "go_diagnostics", "arguments": map[string]any{}}
		if token != nil {
			params["_meta"] = map[string]any{"progressToken": token}
		}
		var res mcp.ToolResultJSON
		if err := st.client.Call(ctx, "tools/call", params, &res); err != nil || res.IsError {
			t.Fatalf("go_diagnostics: %v %s", err, res.Text())
		}
	}
	call(nil)
	if n := len(st.notes.snapshot()); n != 0 {
		t.Errorf("%d notifications for a call without a progress token", n)
	}
	// A change, so that gopls diagnoses the workspace again rather than
	// go_diagnostics keeping the answer it has.
	f := filepath.Join(root, "shapes", "shapes.go")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(data, "\n// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	call("diag")
	atResponse := st.notes.snapshot()
	// A round trip after the response: anything the relay sent late
	// would arrive before the ping's answer.
	if err := st.client.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if after := st.notes.snapshot(); len(after) != len(atResponse) {
		t.Errorf("notifications after the response: %+v", after[len(atResponse):])
	}
	var msgs []string
	last := 0.0
	for _, n := range atResponse {
		if n.method != "notifications/progress" || n.params["progressToken"] != "diag" {
			t.Errorf("unexpected notification %+v", n)
			continue
		}
		p := n.params["progress"].(float64)
		if p <= last {
			t.Errorf("progress %v after %v: not increasing", p, last)
		}
		last = p
		msgs = append(msgs, n.params["message"].(string))
	}
	// gopls's titles and their end, never its messages (which may quote
	// what another session gave it).
	if !slices.Contains(msgs, "gopls: Diagnose files: done") || !slices.Contains(msgs, "gopls: Diagnose files") {
		t.Errorf("progress messages %q: want gopls's Diagnose files begin and end", msgs)
	}
}

// instructionsBudget bounds the instructions after their first line:
// every session reads them before its first question.
const instructionsBudget = 2048

// TestInstructionsBudget checks that the default instructions after the
// first line fit in 2 KiB, and logs the room left for a new tool's line.
func TestInstructionsBudget(t *testing.T) {
	_, rest, _ := strings.Cut(bridge.Instructions, "\n")
	t.Logf("instructions after the first line: %d bytes, %d left of %d", len(rest), instructionsBudget-len(rest), instructionsBudget)
	if len(rest) > instructionsBudget {
		t.Errorf("the instructions after the first line are %d bytes, %d over %d: shorten the catalogue's Instruction lines", len(rest), len(rest)-instructionsBudget, instructionsBudget)
	}
}

// TestInstructions checks docs/protocol.md's instructions: initialize returns
// guidance whose first line (all Codex shows) says in at most 120
// characters what goplsmcp is for, whose rest (at most 2 KiB, see
// TestInstructionsBudget) names every tool offered and no other, and which steers the agent to the tools
// instead of grep and whole files, away from running the code, and
// explains positions and the symbol alternative.
func TestInstructions(t *testing.T) {
	st := startStackWith(t, exampleRoot(t), "2025-11-25", bridge.Limits{})
	text := bridge.Instructions
	head, _, _ := strings.Cut(text, "\n")
	if len(head) > 120 {
		t.Errorf("the first line is %d characters, over 120: %s", len(head), head)
	}
	for _, want := range []string{"grep", "whole files", "Never build, run or test", "1-based", "byte columns", "go vet", "symbol"} {
		if !strings.Contains(text, want) {
			t.Errorf("instructions lack %q:\n%s", want, text)
		}
	}
	named := func(text string) []string {
		var tools []string
		for _, word := range strings.FieldsFunc(text, func(r rune) bool { return r != '_' && (r < 'a' || r > 'z') }) {
			if strings.HasPrefix(word, "go_") && !slices.Contains(tools, word) {
				tools = append(tools, word)
			}
		}
		slices.Sort(tools)
		return tools
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(st.server.ToolNames())), named(text)); diff != "" {
		t.Errorf("the tools the instructions name (-registered +named):\n%s", diff)
	}
	// With fewer tools offered, only those are named.
	few := []string{"go_diagnostics", "go_format", "go_search"}
	if diff := cmp.Diff(few, named(bridge.InstructionsFor(func(tool string) bool { return slices.Contains(few, tool) }))); diff != "" {
		t.Errorf("instructions for %v name (-want +got):\n%s", few, diff)
	}
}
