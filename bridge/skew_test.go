package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// skewModule is a go 1.27 module with a generic method, which a gopls
// built by Go 1.26 reports as a syntax error.
var skewModule = map[string]string{
	"go.mod": "module example.com/skew\n\ngo 1.27\n",
	"lib/lib.go": `package lib

// Conv converts.
type Conv struct{}

// As asserts v to T.
func (Conv) As[T any](v any) (T, bool) {
	t, ok := v.(T)
	return t, ok
}
`,
}

// TestGoplsSkew runs a real gopls v0.23.0 built by Go 1.26 (make builds
// it as bin/gopls-v0.23.0-go1.26) on a go 1.27 module, with Go 1.27 on
// PATH: go_workspace says, every time, that gopls is older than both and
// how to rebuild it, and so does the first answer of each session, once,
// on both channels; each request of the stateless revision is a session
// of its own, and says it. With the pinned gopls nothing says it.
func TestGoplsSkew(t *testing.T) {
	old, err := filepath.Abs("../bin/gopls-v0.23.0-go1.26")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Skipf("%s is missing: make bin/gopls-v0.23.0-go1.26 builds it with a Go 1.26", old)
	}
	goVersion := exec.Command("go", "env", "GOVERSION")
	goVersion.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := goVersion.Output()
	if err != nil {
		t.Fatal(err)
	}
	onPath := strings.TrimSpace(string(out))
	sentence := "gopls v0.23.0 was built with go1.26.8, older than this workspace's go 1.27 and than " + onPath +
		" on PATH: it reports newer syntax and APIs as errors; rebuild it with the newer Go (go install golang.org/x/tools/gopls@" + lspclient.PinnedGopls + ")"

	for _, tt := range []struct {
		name  string
		gopls string
		skew  bool
	}{{"built by Go 1.26", old, true}, {"pinned", testGopls(t), false}} {
		t.Run(tt.name, func(t *testing.T) {
			root := realTempDir(t)
			for name, data := range skewModule {
				writeWorkspaceFile(t, root, name, []byte(data))
			}
			st := startStackOf(t, root, stackConfig{lsp: lspclient.Options{Gopls: tt.gopls}})
			ctx := testCtx(t)
			want := func(n int) int {
				if tt.skew {
					return n
				}
				return 0
			}

			// The first answer of the session says it, once, in its text
			// and its structured result's notes; the next does not.
			for i := range 2 {
				res, err := st.client.CallTool(ctx, "go_diagnostics", map[string]any{})
				if err != nil || res.IsError {
					t.Fatalf("go_diagnostics: %v %s", err, res.Text())
				}
				n := 0
				if i == 0 {
					n = 1
				}
				checkSaid(t, fmt.Sprintf("answer %d of the session", i+1), res, sentence, want(n))
			}
			// go_workspace says it each time, in its skew, not as a note.
			for range 2 {
				res, err := st.client.CallTool(ctx, "go_workspace", map[string]any{})
				if err != nil || res.IsError {
					t.Fatalf("go_workspace: %v %s", err, res.Text())
				}
				if got, wantLine := strings.Contains(res.Text(), " (built with go1.26.8) with "+onPath+"\n"+sentence+"\nbuild: module\n"), tt.skew; got != wantLine {
					t.Errorf("go_workspace answered\n%s\nwant the skew on the line after gopls's: %v", res.Text(), wantLine)
				}
				var ws bridge.WorkspaceOutput
				if err := json.Unmarshal(res.StructuredContent, &ws); err != nil {
					t.Fatal(err)
				}
				if (ws.Skew == sentence) != tt.skew || (ws.Skew != "" && !tt.skew) {
					t.Errorf("go_workspace's skew = %q; want it said: %v", ws.Skew, tt.skew)
				}
				if strings.Count(res.Text(), sentence) != want(1) || strings.Contains(string(res.StructuredContent), `"notes"`) {
					t.Errorf("go_workspace says the skew %d times, or as a note:\n%s\n%s", strings.Count(res.Text(), sentence), res.Text(), res.StructuredContent)
				}
			}

			// Another session is told again, on its first answer.
			other := st.session(t, "2025-11-25")
			res, err := other.CallTool(ctx, "go_diagnostics", map[string]any{})
			if err != nil || res.IsError {
				t.Fatalf("go_diagnostics: %v %s", err, res.Text())
			}
			checkSaid(t, "the first answer of another session", res, sentence, want(1))

			// Stateless requests: each is a session of its own.
			modern := st.session(t, "")
			for i := range 2 {
				var res mcp.ToolResultJSON
				err := modern.Call(ctx, "tools/call", map[string]any{
					"name": "go_diagnostics", "arguments": map[string]any{},
					"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}},
				}, &res)
				if err != nil || res.IsError {
					t.Fatalf("a stateless go_diagnostics: %v %s", err, res.Text())
				}
				checkSaid(t, fmt.Sprintf("stateless answer %d", i+1), &res, sentence, want(1))
			}
		})
	}
}

// checkSaid checks that res says sentence n times in its text, and as
// many times among its structured result's notes.
func checkSaid(t *testing.T, what string, res *mcp.ToolResultJSON, sentence string, n int) {
	t.Helper()
	var sc struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(res.StructuredContent, &sc); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	notes := 0
	for _, note := range sc.Notes {
		if note == sentence {
			notes++
		}
	}
	if text := strings.Count(res.Text(), sentence); text != n || notes != n {
		t.Errorf("%s says the skew %d times in its text and %d in its notes; want %d:\n%s\n%s", what, text, notes, n, res.Text(), res.StructuredContent)
	}
}

// session opens another session of the stack's server over stdio,
// initialized at version, or left uninitialized when version is "" (for
// requests of the stateless revision). It ends with the test.
func (st *stack) session(t *testing.T, version string) *mcp.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- st.server.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		<-served
	})
	c := mcp.NewClient(outR, inW)
	if version != "" {
		if _, err := c.Initialize(testCtx(t), version); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
