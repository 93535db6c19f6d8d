package bridge_test

import (
	"strings"
	"testing"
)

// TestSymbolInUnsavedText looks up by symbol alone, across the workspace,
// names declared only in the session's own unsaved text: an overlay of a
// file on disk, unsaved text for a file not on disk, and a snippet.
func TestSymbolInUnsavedText(t *testing.T) {
	c := startStack(t, exampleRoot(t))
	ctx := testCtx(t)
	give := []map[string]any{
		{"file": "report/report.go", "text": "package report\n\n// NewThing is only in the overlay.\nfunc NewThing() int { return 1 }\n"},
		{"file": "report/extra.go", "text": "package report\n\n// FreshThing is in a file not on disk.\nfunc FreshThing() int { return 2 }\n"},
		{"text": "package scratch\n\n// SnipThing is in a snippet.\nfunc SnipThing() int { return 3 }\n"},
	}
	for _, args := range give {
		if res, err := c.CallTool(ctx, "go_diagnostics", args); err != nil || res.IsError {
			t.Fatalf("go_diagnostics %v: %v %s", args, err, res.Text())
		}
	}
	for _, name := range []string{"NewThing", "FreshThing", "SnipThing"} {
		res, err := c.CallTool(ctx, "go_describe", map[string]any{"symbol": name})
		if err != nil || res.IsError || !strings.Contains(res.Text(), "func "+name+"() int") {
			t.Errorf("go_describe {symbol: %s} after the session gave it unsaved: %v %q; want its declaration", name, err, res.Text())
		}
	}
}
