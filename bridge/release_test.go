package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// TestToolsReleaseTheirBuffers calls each tool that reads a file, then
// changes that file on disk and searches for what the change added. A
// tool that kept its hold on the buffer would keep gopls on the old text:
// the change would never reach it (and a later call wanting another text
// of the file would wait for ever). Each tool reads a file of its own, so
// that one tool's fault cannot hide or cause another's.
func TestToolsReleaseTheirBuffers(t *testing.T) {
	root := realTempDir(t)
	writeWorkspaceFile(t, root, "go.mod", []byte("module example.com/m\n\ngo 1.26\n"))
	const src = `package p

// Shape has an area.
type Shape interface{ Area() float64 }

// Square is a Shape.
type Square struct{ Side float64 }

// Area implements Shape.
func (s Square) Area() float64 { return s.Side * s.Side }

// Total adds the areas.
func Total(shapes ...Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}

func use() float64 { return Total(Square{Side: 2}) }
`
	// Positions are 0-based: line 3 "type Shape", line 12 "func Total",
	// line 20 the call of Total (column 34 is inside its parentheses).
	cases := []struct {
		tool string
		args map[string]any // without file
	}{
		{"go_describe", map[string]any{"line": 13, "column": 6}},
		{"go_describe", map[string]any{"symbol": "Total"}},
		{"go_definition", map[string]any{"line": 21, "column": 29}},
		{"go_symbol_references", map[string]any{"line": 13, "column": 6}},
		{"go_implementations", map[string]any{"line": 4, "column": 6}},
		{"go_symbols", map[string]any{}},
		{"go_complete", map[string]any{"line": 21, "column": 29}},
		{"go_signature", map[string]any{"line": 21, "column": 35}},
		{"go_tokens", map[string]any{}},
		{"go_call_hierarchy", map[string]any{"line": 13, "column": 6}},
		{"go_type_hierarchy", map[string]any{"line": 4, "column": 6}},
		{"go_file_context", map[string]any{}},
	}
	for i := range cases {
		writeWorkspaceFile(t, root, fmt.Sprintf("p%d/p.go", i), []byte(src))
	}
	c := startStack(t, root)

	for i, tc := range cases {
		t.Run(fmt.Sprintf("%d_%s", i, tc.tool), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			file := fmt.Sprintf("p%d/p.go", i)
			args := map[string]any{"file": file}
			for k, v := range tc.args {
				args[k] = v
			}
			res, err := c.CallTool(ctx, tc.tool, args)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("%s: %s", tc.tool, res.Text())
			}

			added := fmt.Sprintf("AddedAfter%d", i)
			if err := os.WriteFile(filepath.Join(root, file), []byte(src+"\nfunc "+added+"() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// go_search holds no buffer, so it answers whatever the
			// tool did; gopls finds the new function only if it was
			// told of the change, which a held buffer defers.
			res, err = c.CallTool(ctx, "go_search", map[string]any{"query": added})
			if err != nil || res.IsError {
				t.Fatalf("go_search: %v %s", err, res.Text())
			}
			var out bridge.SearchOutput
			if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
				t.Fatal(err)
			}
			at, _ := out.Symbols.Get(file)
			found := slices.ContainsFunc(at, func(s string) bool { return strings.HasSuffix(s, " "+added) })
			if !found {
				t.Errorf("after %s read %s, gopls did not see the file change on disk (search for %s: %s); the tool keeps its hold on the buffer", tc.tool, file, added, res.Text())
			}
		})
	}
}
