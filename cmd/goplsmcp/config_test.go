package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

func TestConfigSnippets(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The name Codex's entry takes from the root: lower case, in the
	// characters Codex allows.
	root := filepath.Join(tmp, "My Repo.v2")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	args := []any{"--root", root}
	for _, tt := range []struct {
		client string
		want   any // decoded JSON, or the TOML text
	}{
		{"claude", map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"type": "stdio", "command": exe, "args": args}}}},
		{"cursor", map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"command": exe, "args": args}}}},
		{"vscode", map[string]any{"servers": map[string]any{"goplsmcp": map[string]any{"type": "stdio", "command": exe, "args": args}}}},
		{"gemini", map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"command": exe, "args": args}}}},
		{"codex", map[string]any{"mcp_servers": map[string]any{"goplsmcp-my-repo-v2": map[string]any{"command": exe, "args": args}}}},
	} {
		t.Run(tt.client, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"config", tt.client, "--root", root}, strings.NewReader(""), &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			var got any
			if tt.client == "codex" {
				got = codexSnippet(t, stdout.String())
			} else if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("%s snippet is not JSON: %v\n%s", tt.client, err, stdout.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s snippet (-want +got):\n%s", tt.client, diff)
			}
			if !strings.Contains(stderr.String(), "put this in") {
				t.Errorf("%s: stderr %q does not say where the snippet goes", tt.client, stderr.String())
			}
		})
	}
	// Without a root, Codex's entry serves the directory Codex starts
	// goplsmcp in: one entry for every project.
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"config", "codex"}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"mcp_servers": map[string]any{"goplsmcp": map[string]any{"command": exe}}}
	if diff := cmp.Diff(want, codexSnippet(t, stdout.String())); diff != "" {
		t.Errorf("codex snippet without --root (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "--write") {
		t.Errorf("stderr %q does not point to --write", stderr.String())
	}
	stdout.Reset()
	err = run(t.Context(), []string{"config", "emacs"}, strings.NewReader(""), &stdout, &bytes.Buffer{})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(ee.msg, "claude, codex, cursor, gemini, vscode") {
		t.Errorf("config emacs = %v, want a usage error listing the clients", err)
	}
}

// TestInstructionsMatchInitialize checks that goplsmcp instructions prints
// exactly the instructions the server sends at initialize, byte for byte
// (plus the line end a terminal wants), as the binary does both: a user
// who pastes them into AGENTS.md gives the agent what an MCP client
// would.
// codexSnippet decodes a snippet of goplsmcp config codex, checks that
// its entry passes on the variables of Codex's environment that the go
// command reads (Codex passes a server only a few of its own), and returns
// it without that list.
func codexSnippet(t *testing.T, text string) map[string]any {
	t.Helper()
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		t.Fatalf("codex snippet is not TOML: %v\n%s", err, text)
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	if len(servers) != 1 {
		t.Fatalf("codex snippet has servers %v, want one", servers)
	}
	for _, entry := range servers {
		entry := entry.(map[string]any)
		vars, _ := entry["env_vars"].([]any)
		for _, v := range []string{"GOFLAGS", "GOPRIVATE", "GOWORK", "GOENV", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "GOPLSMCP_RUNTIME_DIR"} {
			if !slices.Contains(vars, any(v)) {
				t.Errorf("codex entry's env_vars %v lack %s", vars, v)
			}
		}
		delete(entry, "env_vars")
	}
	return doc
}

// tomlQuote quotes s as a TOML basic string for the wanted snippets: on
// Windows, the backslashes of a path are escaped.
func tomlQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

func TestInstructionsMatchInitialize(t *testing.T) {
	printed, stderr, code := runOnce(t, "", "instructions")
	if code != 0 || stderr != "" {
		t.Fatalf("goplsmcp instructions: exit %d, stderr %q", code, stderr)
	}
	p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	res, _ := p.recv()["result"].(map[string]any)
	sent, _ := res["instructions"].(string)
	if sent == "" {
		t.Fatalf("initialize sent no instructions: %v", res)
	}
	if diff := cmp.Diff(sent+"\n", printed); diff != "" {
		t.Errorf("goplsmcp instructions differs from initialize's instructions (-initialize +printed):\n%s", diff)
	}
}

// TestConfigHTTPSnippets checks goplsmcp config CLIENT --url: each
// client's entry for a server over HTTP, sending the token the way that
// client can without writing it in the file. (.interop/config-http.mjs
// connects the TypeScript SDK client as each snippet says.)
func TestConfigHTTPSnippets(t *testing.T) {
	const url = "http://goplsmcp-devbox:8765/mcp"
	auth := func(ref string) map[string]any { return map[string]any{"Authorization": "Bearer " + ref} }
	for _, tt := range []struct {
		client string
		want   any // decoded JSON, or the TOML text
	}{
		{"claude", map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"type": "http", "url": url, "headers": auth("${GOPLSMCP_TOKEN}")}}}},
		{"cursor", map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"url": url, "headers": auth("${env:GOPLSMCP_TOKEN}")}}}},
		{"vscode", map[string]any{
			"servers": map[string]any{"goplsmcp": map[string]any{"type": "http", "url": url, "headers": auth("${input:goplsmcp-token}")}},
			"inputs":  []any{map[string]any{"type": "promptString", "id": "goplsmcp-token", "description": "goplsmcp bearer token", "password": true}},
		}},
		{"gemini", map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"httpUrl": url, "headers": auth("${GOPLSMCP_TOKEN}")}}}},
		{"codex", "[mcp_servers.goplsmcp]\nurl = \"" + url + "\"\nbearer_token_env_var = \"GOPLSMCP_TOKEN\"\n"},
	} {
		// The server alone names the endpoint as well.
		for _, given := range []string{url, "http://goplsmcp-devbox:8765", "http://goplsmcp-devbox:8765/"} {
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"config", tt.client, "--url", given}, strings.NewReader(""), &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			var got any = stdout.String()
			if _, isText := tt.want.(string); !isText {
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("%s snippet is not JSON: %v\n%s", tt.client, err, stdout.String())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s --url %s snippet (-want +got):\n%s", tt.client, given, diff)
			}
			if !strings.Contains(stderr.String(), "put this in") || !strings.Contains(stderr.String(), "token") {
				t.Errorf("%s: stderr %q does not say where the snippet goes and how the token gets there", tt.client, stderr.String())
			}
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "goplsmcp-devbox:8765"}, "want the server's endpoint"},
		{[]string{"--url", "ftp://goplsmcp-devbox/mcp"}, "want the server's endpoint"},
		{[]string{"--url", "http://user:pw@goplsmcp-devbox/mcp"}, "want the server's endpoint"},
		{[]string{"--url", "http://goplsmcp-devbox:8765/mcp", "--root", "."}, "--root is for the stdio form"},
	} {
		err := run(t.Context(), append([]string{"config", "claude"}, tt.args...), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(ee.msg, tt.want) {
			t.Errorf("config claude %v = %v, want a usage error saying %q", tt.args, err, tt.want)
		}
	}
}

func TestInstructionsSubcommand(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"instructions"}, strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go_symbol_references", "1-based", "Never build, run or test"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("instructions do not mention %q:\n%s", want, stdout.String())
		}
	}
}
