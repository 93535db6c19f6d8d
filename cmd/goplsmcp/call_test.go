package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runOnce runs the goplsmcp binary to its end with stdin, and returns its
// stdout, stderr and exit code.
func runOnce(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running goplsmcp %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// TestCall runs goplsmcp call as a script would: the answer alone on
// stdout, exit 0; a tool error on stderr with nothing on stdout, with
// --json too (an error has no structured result), exit 1; usage errors exit 2; flags before or after the word
// call; arguments from stdin with -; and debug: true.
func TestCall(t *testing.T) {
	root := exampleRoot(t)
	gopls := goplsPath(t)
	before := snapshotDir(t, root)
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStdout string // exact, unless wantJSON
		wantJSON   any    // decoded stdout
		wantStderr string // substring
	}{
		{name: "answer", args: []string{"call", "--root", root, "--gopls", gopls, "go_definition", `{"file":"main.go","symbol":"report.Summary"}`},
			wantStdout: "report/report.go:11:6: func Summary(list []shapes.Shape) string {\n"},
		{name: "flags before call", args: []string{"--root", root, "--gopls", gopls, "call", "go_definition", `{"file":"main.go","line":13,"column":23}`},
			wantStdout: "report/report.go:11:6: func Summary(list []shapes.Shape) string {\n"},
		{name: "json", args: []string{"--gopls", gopls, "call", "--root", root, "--json", "go_definition", `{"file":"main.go","symbol":"report.Summary"}`},
			wantJSON: map[string]any{"at": []any{"report/report.go:11:6: func Summary(list []shapes.Shape) string {"}}},
		{name: "arguments from stdin", stdin: `{"file":"shapes/shapes.go","symbol":"Rect.Area"}`,
			args:       []string{"call", "--root", root, "--gopls", gopls, "go_describe", "-"},
			wantStdout: "func (r Rect) Area() float64\nArea returns the rectangle's area.\n"},
		{name: "no arguments", args: []string{"call", "--root", root, "--gopls", gopls, "go_symbols"},
			wantCode: 1, wantStderr: "goplsmcp: "},
		{name: "tool error", args: []string{"call", "--root", root, "--gopls", gopls, "go_definition", `{"file":"nope.go","symbol":"X"}`},
			wantCode: 1, wantStderr: `goplsmcp: file "nope.go" does not exist`},
		{name: "tool error as json", args: []string{"call", "--root", root, "--gopls", gopls, "--json", "go_definition", `{"file":"../x.go","line":1,"column":1}`},
			wantCode: 1, wantStderr: `goplsmcp: file "../x.go" is outside the workspace root; pass a path inside ` + root},
		{name: "writes disabled", args: []string{"call", "--root", root, "--gopls", gopls, "go_format", `{"file":"main.go","apply":true}`},
			wantCode: 1, wantStderr: "writes are disabled"},
		{name: "unknown tool", args: []string{"call", "--root", root, "--gopls", gopls, "go_nope", `{}`},
			wantCode: 2, wantStderr: `unknown tool "go_nope"; the tools are go_workspace, go_search,`},
		{name: "tool left out by --tools", args: []string{"call", "--root", root, "--gopls", gopls, "--tools", "go_workspace,go_describe", "go_definition", `{}`},
			wantCode: 2, wantStderr: `unknown tool "go_definition"; the tools are go_workspace, go_describe`},
		{name: "bad json", args: []string{"call", "--root", root, "--gopls", gopls, "go_definition", `{"file":`},
			wantCode: 2, wantStderr: "must be a JSON object"},
		{name: "json not an object", args: []string{"call", "--root", root, "--gopls", gopls, "go_definition", `["main.go"]`},
			wantCode: 2, wantStderr: "must be a JSON object"},
		{name: "flag after the tool", args: []string{"call", "--root", root, "go_definition", "--json"},
			wantCode: 2, wantStderr: "--json after TOOL; flags go before TOOL"},
		{name: "flag after the arguments", args: []string{"call", "--root", root, "go_definition", "{}", "--json"},
			wantCode: 2, wantStderr: "--json after TOOL; flags go before TOOL"},
		{name: "two arguments", args: []string{"call", "--root", root, "go_definition", "{}", "{}"},
			wantCode: 2, wantStderr: `unexpected argument "{}" after the tool's arguments`},
		{name: "no tool", args: []string{"call", "--root", root},
			wantCode: 2, wantStderr: "usage: goplsmcp call"},
		{name: "bad flag", args: []string{"call", "--bogus", "go_workspace"},
			wantCode: 2, wantStderr: "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runOnce(t, tt.stdin, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if tt.wantJSON != nil {
				var got any
				if err := json.Unmarshal([]byte(stdout), &got); err != nil {
					t.Fatalf("stdout is not JSON: %q", stdout)
				}
				if diff := cmp.Diff(tt.wantJSON, got); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			} else if stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, stderr)
			}
		})
	}
	if diff := cmp.Diff(before, snapshotDir(t, root)); diff != "" {
		t.Errorf("goplsmcp call changed the workspace (-before +after):\n%s", diff)
	}

	// debug: true adds the LSP requests, to the text and to the JSON.
	stdout, _, code := runOnce(t, "", "call", "--root", root, "--gopls", gopls, "go_definition", `{"file":"main.go","symbol":"report.Summary","debug":true}`)
	if code != 0 || !strings.HasPrefix(stdout, "report/report.go:11:6: func Summary(list []shapes.Shape) string {\ndebug: ") ||
		!strings.Contains(stdout, "\n  textDocument/definition ") {
		t.Errorf("text with debug (exit %d):\n%s", code, stdout)
	}
	stdout, _, code = runOnce(t, "", "call", "--root", root, "--gopls", gopls, "--json", "go_definition", `{"file":"main.go","symbol":"report.Summary","debug":true}`)
	var withDebug struct {
		Debug struct {
			Requests []struct {
				Method string `json:"method"`
				OK     bool   `json:"ok"`
			} `json:"requests"`
		} `json:"debug"`
	}
	if err := json.Unmarshal([]byte(stdout), &withDebug); code != 0 || err != nil || len(withDebug.Debug.Requests) == 0 ||
		withDebug.Debug.Requests[0].Method != "textDocument/definition" || !withDebug.Debug.Requests[0].OK {
		t.Errorf("JSON with debug (exit %d, %v):\n%s", code, err, stdout)
	}
}

// TestCallAllowWrite: with --allow-write, goplsmcp call applies edits.
func TestCallAllowWrite(t *testing.T) {
	root := exampleRoot(t)
	path := filepath.Join(root, "main.go")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	messy := bytes.Replace(orig, []byte("func main() {"), []byte("func   main()   {"), 1)
	if err := os.WriteFile(path, messy, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runOnce(t, "", "call", "--root", root, "--gopls", goplsPath(t), "--allow-write", "go_format", `{"file":"main.go","apply":true}`)
	if code != 0 || !strings.HasPrefix(stdout, "applied: 2 edits in 1 file\n--- a/main.go\n+++ b/main.go\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, orig) {
		t.Errorf("main.go after go_format with apply:\n%s", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("main.go's mode after the write: %v %v", fi.Mode(), err)
	}
}

// snapshotDir reads every file under dir.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
