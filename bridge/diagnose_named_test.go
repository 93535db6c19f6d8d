package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge"
	"github.com/goplsmcp/goplsmcp/mcp"
	"golang.org/x/tools/txtar"
)

// TestNamedFileFromDiagnosis checks that go_diagnostics takes the
// diagnostics of a file named as on disk from gopls's full diagnosis of
// the workspace, which it waits for anyway, instead of pulling them
// (textDocument/diagnostic) beside it: the answer still has the file's
// analyzer findings with their fixes, and after a change on disk its new
// type error with the error's quick fix (gopls's analyzers skip a
// package with type errors). A file given with unsaved text is still
// pulled.
func TestNamedFileFromDiagnosis(t *testing.T) {
	root := copyArchive(t, txtar.Parse([]byte(`
-- go.mod --
module example.com/named

go 1.24
-- p/p.go --
package p

import "fmt"

func Echo(s string) string { return fmt.Sprintf(s) }
-- p/p_test.go --
package p

import "testing"

func TestEcho(t *testing.T) { _ = Echo("x") }
`)))
	c, _ := startConfigured(t, root, bridge.Config{})
	ctx := testCtx(t)
	diagnose := func(args map[string]any) (text string, asked []string) {
		t.Helper()
		args["debug"] = true
		res, err := c.CallTool(ctx, "go_diagnostics", args)
		if err != nil || res.IsError {
			t.Fatalf("go_diagnostics %v: %v %s", args, err, res.Text())
		}
		var out struct {
			Debug *mcp.DebugInfo `json:"debug"`
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out.Debug == nil {
			t.Fatalf("no debug in %s (%v)", res.StructuredContent, err)
		}
		for _, e := range out.Debug.Requests {
			asked = append(asked, e.Method)
		}
		return res.Text(), asked
	}
	pulled := func(asked []string) bool {
		for _, m := range asked {
			if m == "textDocument/diagnostic" {
				return true
			}
		}
		return false
	}
	const printf = "non-constant format string in call to fmt.Sprintf (printf)"

	text, asked := diagnose(map[string]any{"files": []string{"p/p.go"}})
	for _, want := range []string{printf, `fix: Insert "%s" format string`} {
		if !strings.Contains(text, want) {
			t.Errorf("the first diagnosis lacks the analyzer's %q:\n%s", want, text)
		}
	}
	if pulled(asked) {
		t.Errorf("the first diagnosis pulled the named file's diagnostics beside the workspace's: %v", asked)
	}

	// A change on disk, as editors save: a temporary file renamed over it.
	file := filepath.Join(root, "p", "p.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	broken := string(src) + "\nfunc Broken() int { return missingName }\n"
	writeWorkspaceFile(t, root, "p/p.go.tmp", []byte(broken))
	if err := os.Rename(file+".tmp", file); err != nil {
		t.Fatal(err)
	}
	text, asked = diagnose(map[string]any{"files": []string{"p/p.go"}})
	for _, want := range []string{"undefined: missingName", "fix: Create variable missingName"} {
		if !strings.Contains(text, want) {
			t.Errorf("after the change on disk, the diagnosis lacks %q:\n%s", want, text)
		}
	}
	if pulled(asked) {
		t.Errorf("after the change on disk, the diagnosis pulled the named file's diagnostics: %v", asked)
	}

	// Unsaved text is no part of gopls's diagnosis of the disk's files.
	text, asked = diagnose(map[string]any{"file": "p/p.go", "text": string(src)})
	if !strings.Contains(text, "+ 5:49: warning: "+printf) {
		t.Errorf("with the unsaved text as it was, the diagnosis lacks the text's finding:\n%s", text)
	}
	if !pulled(asked) {
		t.Errorf("the unsaved text's diagnostics were not pulled: %v", asked)
	}
}
