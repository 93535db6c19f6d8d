package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goplsmcp/goplsmcp/mcp"
)

// clientConfig describes where one MCP client keeps its server list and
// how an entry is written there: one that starts goplsmcp (stdio), or one
// that connects to a goplsmcp serving HTTP, sending the token the way the
// client can without writing it in the file.
type clientConfig struct {
	file     string // where the snippet goes
	render   func(command string, args []string) string
	http     func(url string) string
	httpFile string // where the HTTP form goes, if not file
	token    string // how the HTTP form's client gets the token
}

// tokenVar is the environment variable the HTTP snippets take the bearer
// token from.
const tokenVar = "GOPLSMCP_TOKEN"

// bearer is the Authorization header with the token given as ref.
func bearer(ref string) map[string]any { return map[string]any{"Authorization": "Bearer " + ref} }

// clientConfigs are the snippets goplsmcp config prints, one per client.
var clientConfigs = map[string]clientConfig{
	"claude": {
		file: ".mcp.json in the project (or: claude mcp add goplsmcp -- COMMAND ARGS)",
		render: func(cmd string, args []string) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{
				"goplsmcp": map[string]any{"type": "stdio", "command": cmd, "args": args},
			}})
		},
		http: func(url string) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{
				"goplsmcp": map[string]any{"type": "http", "url": url, "headers": bearer("${" + tokenVar + "}")},
			}})
		},
		httpFile: ".mcp.json in the project (or: claude mcp add --transport http goplsmcp URL --header \"Authorization: Bearer $" + tokenVar + "\")",
		token:    "Claude Code expands ${" + tokenVar + "} from its environment",
	},
	"cursor": {
		file: ".cursor/mcp.json in the project, or ~/.cursor/mcp.json",
		render: func(cmd string, args []string) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{
				"goplsmcp": map[string]any{"command": cmd, "args": args},
			}})
		},
		http: func(url string) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{
				"goplsmcp": map[string]any{"url": url, "headers": bearer("${env:" + tokenVar + "}")},
			}})
		},
		token: "Cursor expands ${env:" + tokenVar + "} from its environment",
	},
	"vscode": {
		file: ".vscode/mcp.json in the workspace",
		render: func(cmd string, args []string) string {
			return jsonSnippet(map[string]any{"servers": map[string]any{
				"goplsmcp": map[string]any{"type": "stdio", "command": cmd, "args": args},
			}})
		},
		http: func(url string) string {
			return jsonSnippet(map[string]any{
				"servers": map[string]any{
					"goplsmcp": map[string]any{"type": "http", "url": url, "headers": bearer("${input:goplsmcp-token}")},
				},
				"inputs": []any{map[string]any{
					"type": "promptString", "id": "goplsmcp-token", "description": "goplsmcp bearer token", "password": true,
				}},
			})
		},
		token: "VS Code asks for the token once and keeps it in its secret storage",
	},
	"codex": {
		file: "~/.codex/config.toml, or .codex/config.toml in a trusted project",
		render: func(cmd string, args []string) string {
			return codexEntry{name: "goplsmcp", kvs: []tomlKV{{"command", cmd}, {"args", args}}}.text("\n")
		},
		http:  func(url string) string { return codexHTTPEntry(url).text("\n") },
		token: "Codex reads the token from " + tokenVar + " in its environment",
	},
	"gemini": {
		file: ".gemini/settings.json in the project, or ~/.gemini/settings.json",
		render: func(cmd string, args []string) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{
				"goplsmcp": map[string]any{"command": cmd, "args": args},
			}})
		},
		http: func(url string) string {
			return jsonSnippet(map[string]any{"mcpServers": map[string]any{
				"goplsmcp": map[string]any{"httpUrl": url, "headers": bearer("${" + tokenVar + "}")},
			}})
		},
		token: "Gemini CLI expands ${" + tokenVar + "} from its environment",
	},
}

// configUsage is goplsmcp config --help, before the flags.
const configUsage = `usage: goplsmcp config CLIENT [--root DIR | --url URL] [--write]

Prints the entry that registers goplsmcp with CLIENT (one of %s),
and on stderr the file it goes in. The entry starts this goplsmcp binary
(its absolute path) with --root DIR, by default the current directory;
Codex's starts goplsmcp in the project Codex works in, so it names no
root unless --root is given. With --url, the entry connects to a
goplsmcp serving --http at URL instead.

With --write (codex only), the entry is merged into Codex's config.toml
($CODEX_HOME, by default ~/.codex): an entry of the same name is replaced,
the rest of the file is kept byte for byte, and a file that is not valid
TOML is left as it is.

Flags:
`

// runConfig prints the configuration snippet for one client: goplsmcp
// config CLIENT [--root DIR | --url URL] [--write]. The stdio form's
// command is this binary's absolute path, and its root is defaultRoot (the
// --root given before the word config) unless --root says otherwise, or
// the current directory; Codex's takes its root from the directory Codex
// starts it in, unless a root is given. The HTTP form connects to URL, a
// goplsmcp serving --http. With --write, Codex's entry goes into its
// config.toml.
func runConfig(args []string, defaultRoot string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("goplsmcp config", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", defaultRoot, "workspace root to put in the snippet (default: the current directory; for codex, the directory Codex starts goplsmcp in)")
	rawURL := fs.String("url", "", "the MCP endpoint of a goplsmcp serving --http, e.g. http://127.0.0.1:8765/mcp: print the snippet that connects to it")
	write := fs.Bool("write", false, "codex only: merge the entry into $CODEX_HOME/config.toml (default ~/.codex/config.toml) instead of printing it")
	if wantsHelp(args) {
		fmt.Fprintf(stdout, configUsage, clientNames())
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError("usage: goplsmcp config CLIENT [--root DIR | --url URL], where CLIENT is one of %s (see goplsmcp config --help)", clientNames())
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
		return usageError("goplsmcp config: unknown client %q; choose one of %s", shortArg(name), clientNames())
	}
	if *write && name != "codex" {
		return usageError("goplsmcp config: --write is for codex only; put the printed %s snippet in %s yourself", name, cc.file)
	}
	if *rawURL != "" {
		if *root != "" {
			return usageError("goplsmcp config: --root is for the stdio form; with --url, the root is the one the server was started with")
		}
		endpoint, err := mcpEndpoint(*rawURL)
		if err != nil {
			return err
		}
		if *write {
			return writeCodexEntry(codexHTTPEntry(endpoint), stdout)
		}
		where := cc.file
		if cc.httpFile != "" {
			where = cc.httpFile
		}
		fmt.Fprint(stdout, cc.http(endpoint))
		fmt.Fprintf(stderr, "goplsmcp: put this in %s; %s (the token the server was given)\n", where, cc.token)
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if name == "codex" {
		// The root is left to the directory Codex starts goplsmcp in, so
		// that one entry serves every project; a root given is named in the
		// entry, and in its name, so that entries for several roots can
		// stand side by side.
		entry := codexStdioEntry(exe, "")
		if *root != "" {
			dir, err := resolveRoot(*root)
			if err != nil {
				return usageError("%v", err)
			}
			entry = codexStdioEntry(exe, dir)
		}
		if *write {
			return writeCodexEntry(entry, stdout)
		}
		fmt.Fprint(stdout, entry.text("\n"))
		fmt.Fprintf(stderr, "goplsmcp: put this in %s, or run goplsmcp config codex --write to merge it there (appending it twice makes the file invalid)\n", cc.file)
		return nil
	}
	dir, err := resolveRoot(*root)
	if err != nil {
		return usageError("%v", err)
	}
	fmt.Fprint(stdout, cc.render(exe, []string{"--root", dir}))
	fmt.Fprintf(stderr, "goplsmcp: put this in %s\n", cc.file)
	return nil
}

// mcpEndpoint checks the URL of a goplsmcp serving HTTP, adding the MCP
// path when only the server is named.
func mcpEndpoint(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", usageError("goplsmcp config: --url %q: want the server's endpoint, e.g. http://127.0.0.1:8765%s", shortArg(raw), mcp.HTTPPath)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = mcp.HTTPPath
	}
	return u.String(), nil
}

// shortArg cuts a command-line value for an error message.
func shortArg(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
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
