package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureRoot copies testdata/NAME to a temporary directory.
func fixtureRoot(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("../../testdata", name))); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// initialized starts p's MCP session.
func initialized(t *testing.T, p *proc) {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"deploy","version":"0"}}}`)
	if m := p.recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestBuildContext starts goplsmcp on a module whose use.go calls a
// function declared only under the integration build tag. Without the
// tag, the call is undefined; with it, given as --build-flags, as
// buildFlags in --settings (inline or @FILE), or as GOFLAGS in --env, it
// resolves. go_workspace and goplsmcp://limits count what was given, and
// never show it.
func TestBuildContext(t *testing.T) {
	gopls := goplsPath(t)
	settingsFile := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settingsFile, []byte(`{"buildFlags": ["-tags=integration"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		definition = `integration.go:5:5: func Integrated() string { return "integration" }`
		undefined  = "use.go: 1 error\n6:8: undefined: Integrated"
	)
	tests := []struct {
		name    string
		flags   []string
		tagged  bool
		counts  map[string]any // go_workspace's buildContext
		secrets []string       // values that must not appear in answers
	}{
		{"no tag", nil, false, nil, nil},
		{"--build-flags", []string{"--build-flags=-tags=integration"}, true,
			map[string]any{"buildFlags": 1.0, "env": 0.0, "settings": 0.0}, []string{"integration"}},
		{"--settings", []string{"--settings", `{"buildFlags":["-tags=integration"],"staticcheck":false}`}, true,
			map[string]any{"buildFlags": 0.0, "env": 0.0, "settings": 2.0}, []string{"-tags"}},
		{"--settings @FILE", []string{"--settings", "@" + settingsFile}, true,
			map[string]any{"buildFlags": 0.0, "env": 0.0, "settings": 1.0}, []string{"-tags", settingsFile}},
		{"--env", []string{"--env", "GOFLAGS=-tags=integration", "--env", "SECRET_TOKEN=hunter2"}, true,
			map[string]any{"buildFlags": 0.0, "env": 2.0, "settings": 0.0}, []string{"GOFLAGS", "SECRET_TOKEN", "hunter2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fixtureRoot(t, "buildtags")
			p := startBinary(t, append([]string{"--root", root, "--gopls", gopls}, tt.flags...)...)
			initialized(t, p)
			var answers []string
			text, _, isError := p.call(2, "go_diagnostics", `{"files":["use.go"]}`)
			answers = append(answers, text)
			want := undefined
			if tt.tagged {
				want = "no diagnostics"
			}
			if isError || !strings.Contains(text, want) {
				t.Errorf("diagnostics of use.go: %q (isError %v), want %q", text, isError, want)
			}
			text, _, isError = p.call(3, "go_definition", `{"file":"use.go","line":6,"character":8,"name":"Integrated"}`)
			answers = append(answers, text)
			if tt.tagged && (isError || text != definition) {
				t.Errorf("definition of Integrated: %q (isError %v), want %q", text, isError, definition)
			}
			if !tt.tagged && text != "no definition found" {
				t.Errorf("definition of Integrated without the tag: %q (isError %v), want none found", text, isError)
			}

			text, structured, isError := p.call(4, "go_workspace", `{}`)
			if isError {
				t.Fatalf("go_workspace: %s", text)
			}
			data, _ := json.Marshal(structured)
			answers = append(answers, text, string(data))
			var wantCounts any
			if tt.counts != nil {
				wantCounts = tt.counts
			}
			if diff := cmp.Diff(wantCounts, structured["buildContext"]); diff != "" {
				t.Errorf("go_workspace buildContext (-want +got):\n%s", diff)
			}
			p.send(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"goplsmcp://limits"}}`)
			m := p.recv()
			limits := m["result"].(map[string]any)["contents"].([]any)[0].(map[string]any)["text"].(string)
			answers = append(answers, limits)
			var lim map[string]any
			if err := json.Unmarshal([]byte(limits), &lim); err != nil {
				t.Fatal(err)
			}
			wantLimits := tt.counts
			if wantLimits == nil {
				wantLimits = map[string]any{"buildFlags": 0.0, "env": 0.0, "settings": 0.0}
			}
			if diff := cmp.Diff(wantLimits, lim["buildContext"]); diff != "" {
				t.Errorf("goplsmcp://limits buildContext (-want +got):\n%s", diff)
			}
			for _, secret := range tt.secrets {
				for _, a := range answers {
					// The package's own identifiers say "integration"; the
					// flag's value must not show beyond them.
					a = strings.NewReplacer("integration.go", "", `"integration"`, "", "undefined", "").Replace(a)
					if strings.Contains(a, secret) {
						t.Errorf("an answer shows %q:\n%s", secret, a)
					}
				}
			}
		})
	}
}

// TestBadBuildContext: build context flags that cannot work are usage
// errors, before gopls starts.
func TestBadBuildContext(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--settings", "staticcheck"}, "want a JSON object of gopls settings"},
		{[]string{"--settings", "[1]"}, "want a JSON object of gopls settings"},
		{[]string{"--settings", `{"pullDiagnostics":false}`}, "goplsmcp relies on the gopls setting pullDiagnostics"},
		{[]string{"--settings", `{"env":{"A":1}}`}, `"env" must be an object of strings`},
		{[]string{"--settings", `{"buildFlags":"-tags=x"}`}, `"buildFlags" must be an array of strings`},
		{[]string{"--settings", "@" + filepath.Join(t.TempDir(), "none.json")}, "no such file or directory"},
		{[]string{"--env", "NOEQUALS"}, "want KEY=VALUE"},
		{[]string{"--env", "=value"}, "want KEY=VALUE"},
		{[]string{"--tools", " , "}, "name at least one tool"},
		{[]string{"--json"}, "--json is for goplsmcp call"},
	} {
		_, stderr, code := runOnce(t, "", append(tt.args, "--gopls", goplsPath(t), "--root", t.TempDir())...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("goplsmcp %v: exit %d, stderr %q; want exit 2 saying %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestToolsFlag: with --tools, only the tools named are listed and
// callable, the list is smaller, and an unknown name is a usage error
// that lists the valid ones.
func TestToolsFlag(t *testing.T) {
	root := exampleRoot(t)
	list := func(args ...string) (int, []string, *proc) {
		t.Helper()
		p := startBinary(t, append([]string{"--root", root, "--gopls", goplsPath(t)}, args...)...)
		initialized(t, p)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		m := p.recv()
		data, _ := json.Marshal(m)
		var names []string
		for _, tool := range m["result"].(map[string]any)["tools"].([]any) {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		return len(data), names, p
	}
	fullSize, all, _ := list()
	size, names, p := list("--tools", "go_definition, go_workspace", "--tools", "go_describe")
	if diff := cmp.Diff([]string{"go_workspace", "go_describe", "go_definition"}, names); diff != "" {
		t.Errorf("tools listed with --tools (-want +got):\n%s", diff)
	}
	t.Logf("tools/list: %d bytes with all %d tools, %d with %d", fullSize, len(all), size, len(names))
	if size*3 > fullSize {
		t.Errorf("tools/list is %d bytes with 3 tools, %d with all %d: it should shrink", size, fullSize, len(all))
	}
	if text, _, isError := p.call(3, "go_symbols", `{"file":"main.go"}`); !isError || text != "unknown tool" {
		t.Errorf("a tool left out: %q (isError %v), want unknown tool", text, isError)
	}
	if text, _, isError := p.call(4, "go_definition", `{"file":"main.go","symbol":"report.Summary"}`); isError {
		t.Errorf("a tool kept: %s", text)
	}

	// gopls mcp's optional tools are offered only when named.
	if _, names, _ := list("--tools", "go_references,go_workspace"); !slices.Equal(names, []string{"go_workspace", "go_references"}) {
		t.Errorf("tools listed with --tools go_references,go_workspace: %v", names)
	}
	if slices.Contains(all, "go_references") {
		t.Errorf("go_references is listed by default: %v", all)
	}

	_, stderr, code := runOnce(t, "", "--root", root, "--gopls", goplsPath(t), "--tools", "go_definition,go_nope,go_never")
	if code != 2 || !strings.Contains(stderr, "--tools: no such tool: go_nope, go_never; the tools are "+strings.Join(all, ", ")) {
		t.Errorf("unknown tools: exit %d, stderr:\n%s", code, stderr)
	}
}

// realTempDir is a temporary directory named without symbolic links.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
