package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigSnippets(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
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
		{"codex", "[mcp_servers.goplsmcp]\ncommand = \"" + exe + "\"\nargs = [\"--root\", \"" + root + "\"]\n"},
	} {
		t.Run(tt.client, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"config", tt.client, "--root", root}, strings.NewReader(""), &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			var got any = stdout.String()
			if _, isText := tt.want.(string); !isText {
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("%s snippet is not JSON: %v\n%s", tt.client, err, stdout.String())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s snippet (-want +got):\n%s", tt.client, diff)
			}
			if !strings.Contains(stderr.String(), "put this in") {
				t.Errorf("%s: stderr %q does not say where the snippet goes", tt.client, stderr.String())
			}
		})
	}
	var stdout bytes.Buffer
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

func TestInstructionsSubcommand(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"instructions"}, strings.NewReader(""), &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go_symbol_references", "0-based", "Never build, run or test"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("instructions do not mention %q:\n%s", want, stdout.String())
		}
	}
}
