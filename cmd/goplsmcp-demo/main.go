// Command goplsmcp-demo drives a short scripted MCP session against
// goplsmcp over stdio and prints, readably, what an agent would see.
//
// Usage: goplsmcp-demo [-server bin/goplsmcp] [-root testdata/example]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/mcp"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "goplsmcp-demo:", err)
		os.Exit(1)
	}
}

// step is one tool call of the script.
type step struct {
	why  string
	tool string
	args map[string]any
}

var script = []step{
	{"What is this workspace?", "go_workspace", map[string]any{}},
	{"Where is anything called Area declared?", "go_search", map[string]any{"query": "Area"}},
	{"What does package shapes export?", "go_package_api",
		map[string]any{"packagePaths": []string{"example.com/shapes/shapes"}}},
	{"Which files have errors? (a file with a type error)", "go_diagnostics",
		map[string]any{"files": []string{"broken/broken.go"}}},
	{"Where is TotalArea declared, as seen from report.go?", "go_definition",
		map[string]any{"file": "report/report.go", "symbol": "shapes.TotalArea"}},
	{"Show me the code of TotalArea (its source, not the whole file)", "go_source",
		map[string]any{"file": "report/report.go", "symbol": "shapes.TotalArea"}},
	{"What does package shapes import, and which packages depend on it?", "go_package_graph",
		map[string]any{"packagePaths": []string{"example.com/shapes/shapes"}, "depth": 2}},
	{"Who uses the Shape interface?", "go_symbol_references",
		map[string]any{"file": "shapes/shapes.go", "symbol": "Shape"}},
	{"Which types implement Shape?", "go_implementations",
		map[string]any{"file": "shapes/shapes.go", "symbol": "Shape"}},
	{"Who calls TotalArea?", "go_call_hierarchy",
		map[string]any{"file": "shapes/shapes.go", "symbol": "TotalArea"}},
	{"What is report.Summary? (the position is one line off; name snaps it)", "go_describe",
		map[string]any{"file": "main.go", "line": 12, "column": 21, "name": "Summary"}},
	{"Rename Rect to Rectangle everywhere (a diff; nothing is written)", "go_rename_symbol",
		map[string]any{"file": "shapes/shapes.go", "symbol": "Rect", "new_name": "Rectangle"}},
	{"Check an edit before saving it: broken.go with the error fixed, as unsaved text", "go_diagnostics",
		map[string]any{"file": "broken/broken.go", "text": "// Package broken holds a deliberate type error, to show diagnostics.\npackage broken\n\nimport \"example.com/shapes/shapes\"\n\n// Unit is a 1×1 square.\nfunc Unit() shapes.Rect {\n\treturn shapes.Rect{W: 1, H: 1}\n}\n"}},
	{"A mistake: a file outside the workspace root", "go_describe",
		map[string]any{"file": "../../go.mod", "line": 1, "column": 1}},
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("goplsmcp-demo", flag.ContinueOnError)
	server := fs.String("server", "bin/goplsmcp", "goplsmcp binary")
	root := fs.String("root", "testdata/example", "workspace root")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// A gopls of its own: the demo leaves no shared daemon behind.
	cmd := exec.Command(*server, "--root", *root, "--log-level", "warn", "--share", "off")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s (run make build first): %w", *server, err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	c := mcp.NewClient(stdout, stdin)

	heading(out, "initialize")
	raw, err := c.Initialize(ctx, "2025-11-25")
	if err != nil {
		return err
	}
	var init struct {
		ServerInfo struct{ Name, Version string }
	}
	_ = json.Unmarshal(raw, &init)
	fmt.Fprintf(out, "connected to %s %s\n", init.ServerInfo.Name, init.ServerInfo.Version)

	heading(out, "tools/list")
	var list struct {
		Tools []struct{ Name, Title string }
	}
	if err := c.Call(ctx, "tools/list", map[string]any{}, &list); err != nil {
		return err
	}
	for _, t := range list.Tools {
		fmt.Fprintf(out, "%-22s %s\n", t.Name, t.Title)
	}

	for _, s := range script {
		argText, _ := json.Marshal(s.args)
		heading(out, s.why)
		fmt.Fprintf(out, "→ %s %s\n", s.tool, argText)
		start := time.Now()
		res, err := c.CallTool(ctx, s.tool, s.args)
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		tag := ""
		if res.IsError {
			tag = " (tool error)"
		}
		fmt.Fprintf(out, "← %s%s in %s\n", s.tool, tag, time.Since(start).Round(time.Millisecond))
		for _, line := range strings.Split(res.Text(), "\n") {
			fmt.Fprintf(out, "  %s\n", line)
		}
	}
	return nil
}

func heading(out io.Writer, s string) {
	fmt.Fprintf(out, "\n== %s\n", s)
}
