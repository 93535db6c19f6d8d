package bridge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkToolCalls times tool calls through the whole server in
// process (an MCP session over pipes, the bridge, lspclient) against a
// warm gopls on the bench fixture: gopls's time plus goplsmcp's own work,
// without the process hop that cmd/goplsmcp-bench includes. Profile it
// to see where goplsmcp's share goes:
//
//	go test ./bridge -run '^$' -bench ToolCalls -cpuprofile cpu.out
//	go test ./bridge -run '^$' -bench ToolCalls/definition -memprofile mem.out
func BenchmarkToolCalls(b *testing.B) {
	root := realTempDir(b)
	if err := os.CopyFS(root, os.DirFS("../testdata/bench")); err != nil {
		b.Fatal(err)
	}
	c := startStack(b, root)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// The first answer waits for the workspace to load.
	if _, err := c.CallTool(ctx, "go_workspace", map[string]any{}); err != nil {
		b.Fatal(err)
	}
	const item = "inventory/item.go"
	at := func(needle string, offset int) map[string]any {
		data, err := os.ReadFile(filepath.Join(root, item))
		if err != nil {
			b.Fatal(err)
		}
		i := strings.Index(string(data), needle)
		if i < 0 {
			b.Fatalf("%s: %q not found", item, needle)
		}
		i += offset
		line := strings.Count(string(data[:i]), "\n")
		char := i - (strings.LastIndexByte(string(data[:i]), '\n') + 1)
		return map[string]any{"file": item, "line": line + 1, "column": char + 1}
	}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"describe", "go_describe", at("core.Wrap(", 5)},
		{"definition", "go_definition", at("core.Wrap(", 5)},
		{"references-10", "go_symbol_references", at("type Item ", 5)},
		{"references-200", "go_symbol_references", at("core.Wrap(", 5)},
		{"symbols", "go_symbols", map[string]any{"file": item}},
		{"diagnostics", "go_diagnostics", map[string]any{"files": []string{"broken/broken.go"}}},
		{"workspace-diagnostics", "go_diagnostics", map[string]any{}},
		{"search", "go_search", map[string]any{"query": "Amount"}},
		{"package-api", "go_package_api", map[string]any{"packagePaths": []string{"example.com/benchmod/core"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := c.CallTool(ctx, tc.tool, tc.args)
				if err != nil {
					b.Fatal(err)
				}
				if res.IsError {
					b.Fatalf("%s: %s", tc.tool, res.Text())
				}
			}
		})
	}
}
