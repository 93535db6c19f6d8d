package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// clientConfig describes where one MCP client keeps its server list and
// how an entry is written there.
type clientConfig struct {
	file   string // where the snippet goes
	render func(command string, args []string) string
}

// clientConfigs are the snippets goplsmcp config prints, one per client.
var clientConfigs = map[string]clientConfig{
	"claude": {".mcp.json in the project (or: claude mcp add goplsmcp -- COMMAND ARGS)", func(cmd string, args []string) string {
		return jsonSnippet(map[string]any{"mcpServers": map[string]any{
			"goplsmcp": map[string]any{"type": "stdio", "command": cmd, "args": args},
		}})
	}},
	"cursor": {".cursor/mcp.json in the project, or ~/.cursor/mcp.json", func(cmd string, args []string) string {
		return jsonSnippet(map[string]any{"mcpServers": map[string]any{
			"goplsmcp": map[string]any{"command": cmd, "args": args},
		}})
	}},
	"vscode": {".vscode/mcp.json in the workspace", func(cmd string, args []string) string {
		return jsonSnippet(map[string]any{"servers": map[string]any{
			"goplsmcp": map[string]any{"type": "stdio", "command": cmd, "args": args},
		}})
	}},
	"codex": {"~/.codex/config.toml, or .codex/config.toml in a trusted project", func(cmd string, args []string) string {
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = tomlString(a)
		}
		return fmt.Sprintf("[mcp_servers.goplsmcp]\ncommand = %s\nargs = [%s]\n", tomlString(cmd), strings.Join(quoted, ", "))
	}},
	"gemini": {".gemini/settings.json in the project, or ~/.gemini/settings.json", func(cmd string, args []string) string {
		return jsonSnippet(map[string]any{"mcpServers": map[string]any{
			"goplsmcp": map[string]any{"command": cmd, "args": args},
		}})
	}},
}

// runConfig prints the configuration snippet for one client: goplsmcp
// config CLIENT [--root DIR]. The command is this binary's absolute path;
// the root defaults to the current directory.
func runConfig(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("goplsmcp config", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", "", "workspace root to put in the snippet (default: the current directory)")
	if len(args) == 0 {
		return usageError("usage: goplsmcp config CLIENT [--root DIR], where CLIENT is one of %s", clientNames())
	}
	name := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return usageError("goplsmcp config: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("goplsmcp config: unexpected argument %q", fs.Arg(0))
	}
	cc, ok := clientConfigs[name]
	if !ok {
		return usageError("goplsmcp config: unknown client %q; choose one of %s", name, clientNames())
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir, err := resolveRoot(*root)
	if err != nil {
		return usageError("%v", err)
	}
	fmt.Fprint(stdout, cc.render(exe, []string{"--root", dir}))
	fmt.Fprintf(stderr, "goplsmcp: put this in %s\n", cc.file)
	return nil
}

func clientNames() string {
	names := make([]string, 0, len(clientConfigs))
	for n := range clientConfigs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func jsonSnippet(v any) string {
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data) + "\n"
}

// tomlString quotes s as a TOML basic string. JSON string escaping is a
// subset of TOML's, so strconv's Go quoting would not do (it emits \x).
func tomlString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}
