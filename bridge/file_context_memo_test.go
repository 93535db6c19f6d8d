package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestFileContextAsksOnce: go_file_context asked again with nothing
// changed gives the same answer without asking gopls where anything is
// declared; after a change on disk it asks again, and the answer shows
// the change.
func TestFileContextAsksOnce(t *testing.T) {
	root := exampleRoot(t)
	c, _ := startConfigured(t, root, bridge.Config{})
	ctx := testCtx(t)
	call := func() (text string, definitions int) {
		t.Helper()
		res, err := c.CallTool(ctx, "go_file_context", map[string]any{"file": "main.go", "debug": true})
		if err != nil || res.IsError {
			t.Fatalf("go_file_context: %v %s", err, res.Text())
		}
		var out struct {
			Debug *mcp.DebugInfo `json:"debug"`
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out.Debug == nil {
			t.Fatalf("no debug in %s (%v)", res.StructuredContent, err)
		}
		for _, r := range out.Debug.Requests {
			if r.Method == "textDocument/definition" {
				definitions++
			}
		}
		text, _, _ = strings.Cut(res.Text(), "\ndebug: ")
		return text, definitions
	}
	first, asked := call()
	if asked == 0 || !strings.Contains(first, "func Summary(") {
		t.Fatalf("the first call asked %d definitions and answered:\n%s", asked, first)
	}
	// The first call may end with the initial load, which counts as a
	// change. Then its file opens in gopls once it has its answer, and a
	// call on another file opens that one (see docs/workspaces.md): gopls
	// sees the same text either way, so the answer kept still holds.
	call()
	if res, err := c.CallTool(ctx, "go_file_context", map[string]any{"file": "report/report.go"}); err != nil || res.IsError {
		t.Fatalf("go_file_context report/report.go: %v %s", err, res.Text())
	}
	again, askedAgain := call()
	if askedAgain != 0 {
		t.Errorf("asked again with nothing changed but files read, go_file_context made %d definition requests, want 0", askedAgain)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the answer asked again (-first +again):\n%s", diff)
	}

	// A new use of another declaration, on disk.
	main := filepath.Join(root, "main.go")
	data, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "fmt.Println(report.Largest(list).Area())", "fmt.Println(report.Largest(list).Area())\n\tfmt.Println(shapes.TotalArea(list...))", 1)
	if edited == string(data) || strings.Contains(first, "func TotalArea(") {
		t.Fatalf("the fixture changed: main.go's last line is gone, or it uses shapes.TotalArea already:\n%s", first)
	}
	if err := os.WriteFile(main, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		text, n := call()
		if strings.Contains(text, "func TotalArea(") {
			if n == 0 {
				t.Errorf("the answer after a change made no definition request")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after main.go changed to use shapes.TotalArea, go_file_context does not list it:\n%s", text)
		}
	}
}
