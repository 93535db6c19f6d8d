package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

// runIn runs the goplsmcp binary in dir with env added to the test's
// environment (a KEY= entry removes KEY), as a shell would.
func runIn(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		cmd.Env = slices.DeleteFunc(cmd.Env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		if v != "" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
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

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// codexServers decodes a config.toml and returns its mcp_servers.
func codexServers(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		t.Fatalf("config.toml is not valid TOML: %v\n%s", err, data)
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	return servers
}

// TestCodexWriteTwice writes Codex's entry as a user would, in one
// project and then another, twice: the file stays valid TOML with one
// root-independent entry, the second run changes nothing, and entries
// for given roots stand beside it. Without CODEX_HOME, the file is
// ~/.codex/config.toml.
func TestCodexWriteTwice(t *testing.T) {
	exe, err := filepath.EvalSymlinks(binary)
	if err != nil {
		t.Fatal(err)
	}
	tmp := resolvedTempDir(t)
	codexHome := mkdir(t, filepath.Join(tmp, "codex-home"))
	projA := mkdir(t, filepath.Join(tmp, "alpha"))
	projB := mkdir(t, filepath.Join(tmp, "Beta Service"))
	env := []string{"CODEX_HOME=" + codexHome}
	file := filepath.Join(codexHome, "config.toml")

	var first []byte
	for i, dir := range []string{projA, projB, projA} {
		out, errOut, code := runIn(t, dir, env, "config", "codex", "--write")
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errOut)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := "written"
		if i > 0 {
			want = "unchanged"
			if !bytes.Equal(data, first) {
				t.Errorf("run %d changed the file:\n%s\nafter the first:\n%s", i, data, first)
			}
		}
		first = data
		if !strings.Contains(out, "[mcp_servers.goplsmcp] "+want) {
			t.Errorf("run %d printed %q, want it to say the entry was %s", i, out, want)
		}
	}
	if n := bytes.Count(first, []byte("[mcp_servers.goplsmcp]")); n != 1 {
		t.Errorf("the file has %d goplsmcp tables:\n%s", n, first)
	}
	envVars := decoded(codexEnvVars)
	servers := codexServers(t, first)
	if diff := cmp.Diff(map[string]any{"goplsmcp": map[string]any{"command": exe, "env_vars": envVars}}, servers); diff != "" {
		t.Errorf("mcp_servers after three writes (-want +got):\n%s", diff)
	}

	// Given roots, before the subcommand or after it: an entry each.
	for i := range 2 {
		for _, args := range [][]string{{"--root", projA, "config", "codex", "--write"}, {"config", "codex", "--write", "--root", projB}} {
			if _, errOut, code := runIn(t, tmp, env, args...); code != 0 {
				t.Fatalf("goplsmcp %v (run %d): exit %d: %s", args, i, code, errOut)
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"goplsmcp":              map[string]any{"command": exe, "env_vars": envVars},
		"goplsmcp-alpha":        map[string]any{"command": exe, "args": []any{"--root", projA}, "env_vars": envVars},
		"goplsmcp-beta-service": map[string]any{"command": exe, "args": []any{"--root", projB}, "env_vars": envVars},
	}
	if diff := cmp.Diff(want, codexServers(t, data)); diff != "" {
		t.Errorf("mcp_servers with two roots written twice (-want +got):\n%s", diff)
	}

	// No CODEX_HOME: the user's ~/.codex, made if missing.
	home := mkdir(t, filepath.Join(tmp, "home"))
	if _, errOut, code := runIn(t, projA, []string{"CODEX_HOME=", "HOME=" + home, "USERPROFILE=" + home}, "config", "codex", "--write"); code != 0 {
		t.Fatalf("without CODEX_HOME: exit %d: %s", code, errOut)
	}
	data, err = os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"goplsmcp": map[string]any{"command": exe, "env_vars": envVars}}, codexServers(t, data)); diff != "" {
		t.Errorf("~/.codex/config.toml (-want +got):\n%s", diff)
	}
}

// codexConfigBefore is a config.toml with the settings, comments and
// servers of a user, and goplsmcp's entry as an older goplsmcp printed
// it, with keys and a flag the user added; a string in it holds lines
// that look like the entry.
const codexConfigBefore = `# Codex settings
model = "gpt-5"   # the default

[mcp_servers.context7]
command = "npx"
args = [
  "-y",   # [mcp_servers.goplsmcp]
  "@upstash/context7-mcp",
]

# goplsmcp, as an older version wrote it
[mcp_servers.goplsmcp]
# the binary
command = "/old/bin/goplsmcp"
args = ["--root", "/old/root", "--allow-write"]
env_vars = ["GOFLAGS", "GOPRIVATE"]
startup_timeout_sec = 20

[mcp_servers.goplsmcp.env]
GOPLSMCP_RUNTIME_DIR = "/run/x"

# the next server
[mcp_servers.'other one']
command = 'C:\tools\x.exe'
notes = """
[mcp_servers.goplsmcp]
command = "not a header" \"""
"""

[profiles.deep]
model_reasoning_effort = "high"
`

// TestCodexWriteKeepsTheRest merges the entry into a user's file: every
// byte outside the entry's command and args is kept, the user's keys and
// flags in the entry stay, and the file's mode is kept.
func TestCodexWriteKeepsTheRest(t *testing.T) {
	exe, err := filepath.EvalSymlinks(binary)
	if err != nil {
		t.Fatal(err)
	}
	codexHome := resolvedTempDir(t)
	file := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(file, []byte(codexConfigBefore), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if _, errOut, code := runIn(t, resolvedTempDir(t), []string{"CODEX_HOME=" + codexHome}, "config", "codex", "--write"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(codexConfigBefore,
		"command = \"/old/bin/goplsmcp\"\nargs = [\"--root\", \"/old/root\", \"--allow-write\"]\n",
		"command = "+tomlQuote(exe)+"\nargs = [\"--allow-write\"]\n", 1)
	if want == codexConfigBefore {
		t.Fatal("the test's replacement matched nothing")
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("config.toml after the merge (-want +got):\n%s", diff)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("the file's mode is %v (%v), want 0640 kept", fi.Mode().Perm(), err)
		}
	}
	assertNoTemp(t, codexHome)
}

// assertNoTemp fails if dir holds anything but config.toml (and what
// else names).
func assertNoTemp(t *testing.T, dir string, also ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "config.toml" && !slices.Contains(also, e.Name()) {
			t.Errorf("%s is left in %s", e.Name(), dir)
		}
	}
}

// TestCodexWriteRefuses checks the files --write leaves alone, byte for
// byte, with one sentence that says why and exit 1: one that is not valid
// TOML (as a snippet appended twice leaves it), an entry in a form the
// merge does not edit, an entry for another root of the same name, and a
// symbolic link.
func TestCodexWriteRefuses(t *testing.T) {
	tmp := resolvedTempDir(t)
	other := mkdir(t, filepath.Join(tmp, "elsewhere", "api"))
	proj := mkdir(t, filepath.Join(tmp, "api"))
	for _, tt := range []struct {
		name, content string
		args          []string
		want          string
	}{
		{"appended twice", "[mcp_servers.goplsmcp]\ncommand = \"/a\"\n\n[mcp_servers.goplsmcp]\ncommand = \"/a\"\n", nil, "is not valid TOML"},
		{"unterminated", "model = \"gpt-5\n", nil, "is not valid TOML"},
		{"inline table", "[mcp_servers]\ngoplsmcp = { command = \"/a\" }\n", nil, "dotted keys or an inline table"},
		{"dotted keys", "mcp_servers.goplsmcp.command = \"/a\"\n", nil, "dotted keys or an inline table"},
		{"another root", "[mcp_servers.goplsmcp-api]\ncommand = \"/a\"\nargs = [\"--root\", " + tomlQuote(other) + "]\n", []string{"--root", proj}, "another root of the same name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			codexHome := resolvedTempDir(t)
			file := filepath.Join(codexHome, "config.toml")
			if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runIn(t, proj, []string{"CODEX_HOME=" + codexHome}, append([]string{"config", "codex", "--write"}, tt.args...)...)
			if code != 1 || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line saying %q", code, out, errOut, tt.want)
			}
			if got, err := os.ReadFile(file); err != nil || string(got) != tt.content {
				t.Errorf("the file was changed (%v):\n%s", err, got)
			}
			assertNoTemp(t, codexHome)
		})
	}

	t.Run("symbolic link", func(t *testing.T) {
		codexHome := resolvedTempDir(t)
		target := filepath.Join(tmp, "dotfiles-config.toml")
		const content = "model = \"gpt-5\"\n"
		if err := os.WriteFile(target, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(codexHome, "config.toml")
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		_, errOut, code := runIn(t, proj, []string{"CODEX_HOME=" + codexHome}, "config", "codex", "--write")
		if code != 1 || !strings.Contains(errOut, "symbolic link") {
			t.Errorf("exit %d, stderr %q; want exit 1 saying it is a symbolic link", code, errOut)
		}
		if got, err := os.ReadFile(target); err != nil || string(got) != content {
			t.Errorf("the link's target was changed (%v):\n%s", err, got)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("config.toml is no longer the link (%v)", err)
		}
	})

	t.Run("not codex", func(t *testing.T) {
		_, errOut, code := runIn(t, proj, []string{"CODEX_HOME=" + resolvedTempDir(t)}, "config", "claude", "--write")
		if code != 2 || !strings.Contains(errOut, "--write is for codex only") {
			t.Errorf("config claude --write: exit %d, stderr %q; want a usage error", code, errOut)
		}
	})
}

// TestMergeCodexEntry merges an entry into files of the shapes TOML
// allows, and compares the whole result.
func TestMergeCodexEntry(t *testing.T) {
	e := codexEntry{name: "goplsmcp", kvs: []tomlKV{{"command", "/bin/goplsmcp"}}}
	const entry = "[mcp_servers.goplsmcp]\ncommand = \"/bin/goplsmcp\"\n"
	for _, tt := range []struct {
		name, old, want string
	}{
		{"empty", "", entry},
		{"no line end at the end", "model = \"x\"", "model = \"x\"\n\n" + entry},
		{"one line end at the end", "model = \"x\"\n", "model = \"x\"\n\n" + entry},
		{"a header in a literal string", "notes = '''\n[mcp_servers.goplsmcp]\ncommand = \"no\"\n'''\n\n", "notes = '''\n[mcp_servers.goplsmcp]\ncommand = \"no\"\n'''\n\n" + entry},
		{"a header at the end, with no line end", "model = \"x\"\n[mcp_servers.goplsmcp]", "model = \"x\"\n[mcp_servers.goplsmcp]\ncommand = \"/bin/goplsmcp\"\n"},
		{"a quoted, spaced header with a comment", "[ mcp_servers . \"goplsmcp\" ]  # ours\nargs = [\n  \"--root\",\n  \"/r\", # old\n]\ncommand = \"/old\"\nenabled = true\n",
			"[ mcp_servers . \"goplsmcp\" ]  # ours\ncommand = \"/bin/goplsmcp\"\nenabled = true\n"},
		{"CRLF", "model = \"x\"\r\n\r\n[mcp_servers.goplsmcp]\r\ncommand = \"/old\"\r\ncwd = \"/w\"\r\n",
			"model = \"x\"\r\n\r\n[mcp_servers.goplsmcp]\r\ncommand = \"/bin/goplsmcp\"\r\ncwd = \"/w\"\r\n"},
		{"only a subtable before", "[mcp_servers.goplsmcp.env]\nA = \"1\"\n", "[mcp_servers.goplsmcp.env]\nA = \"1\"\n\n" + entry},
		{"the HTTP form replaced", "[mcp_servers.goplsmcp]\nurl = \"http://h/mcp\"\nbearer_token_env_var = \"T\"\n", entry},
		{"a date and time with a space, and inline tables", "when = 1979-05-27 07:32:00Z\nt = { a = [1, { b = \"]\" }], c = 'x' }\n", "when = 1979-05-27 07:32:00Z\nt = { a = [1, { b = \"]\" }], c = 'x' }\n\n" + entry},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mergeCodexEntry([]byte(tt.old), e)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("merged (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeCodexEnvVars checks the entry's env_vars: added to an entry
// without a list, the user's list kept as it is.
func TestMergeCodexEnvVars(t *testing.T) {
	e := codexEntry{name: "goplsmcp", kvs: []tomlKV{{"command", "/bin/goplsmcp"}, {"env_vars", []string{"GOFLAGS", "GOWORK"}}}}
	for _, tt := range []struct {
		name, old, want string
	}{
		{"an entry without a list", "[mcp_servers.goplsmcp]\ncommand = \"/old\"\nargs = [\"--root\", \"/r\"]\n",
			"[mcp_servers.goplsmcp]\ncommand = \"/bin/goplsmcp\"\nenv_vars = [\"GOFLAGS\", \"GOWORK\"]\n"},
		{"the user's list", "[mcp_servers.goplsmcp]\ncommand = \"/old\"\nenv_vars = [\"GOPRIVATE\"]\n",
			"[mcp_servers.goplsmcp]\ncommand = \"/bin/goplsmcp\"\nenv_vars = [\"GOPRIVATE\"]\n"},
	} {
		got, err := mergeCodexEntry([]byte(tt.old), e)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("%s: merged (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSubcommandHelp asks each subcommand for help, with --help and -h,
// also after flags before its name: its usage on stdout, exit 0.
func TestSubcommandHelp(t *testing.T) {
	dir := resolvedTempDir(t)
	for _, tt := range []struct {
		args []string
		want string // the start of stdout
	}{
		{[]string{"config", "--help"}, "usage: goplsmcp config CLIENT"},
		{[]string{"config", "-h"}, "usage: goplsmcp config CLIENT"},
		{[]string{"config", "codex", "--help"}, "usage: goplsmcp config CLIENT"},
		{[]string{"--root", dir, "config", "-h"}, "usage: goplsmcp config CLIENT"},
		{[]string{"rules", "--help"}, "usage: goplsmcp rules"},
		{[]string{"rules", "codex", "-h"}, "usage: goplsmcp rules"},
		{[]string{"daemon", "--help"}, "usage:\n  goplsmcp daemon list"},
		{[]string{"daemon", "-h"}, "usage:\n  goplsmcp daemon list"},
		{[]string{"daemon", "list", "--help"}, "usage: goplsmcp daemon list"},
		{[]string{"--root", dir, "daemon", "list", "-h"}, "usage: goplsmcp daemon list"},
		{[]string{"daemon", "stop", "--help"}, "usage: goplsmcp daemon stop"},
		{[]string{"daemon", "stop", "-h"}, "usage: goplsmcp daemon stop"},
		{[]string{"instructions", "--help"}, "usage: goplsmcp instructions"},
		{[]string{"instructions", "-h"}, "usage: goplsmcp instructions"},
		{[]string{"call", "--help"}, "usage: goplsmcp [flags] call"},
		{[]string{"--root", dir, "call", "-h"}, "usage: goplsmcp [flags] call"},
		{[]string{"call", "go_describe", "--help"}, "usage: goplsmcp [flags] call"},
		{[]string{"--help"}, "goplsmcp: an MCP server"},
		{[]string{"-h"}, "goplsmcp: an MCP server"},
	} {
		out, errOut, code := runIn(t, dir, nil, tt.args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, tt.want) {
			t.Errorf("goplsmcp %s: exit %d, stderr %q, stdout %.80q; want exit 0 and stdout starting %q", strings.Join(tt.args, " "), code, errOut, out, tt.want)
		}
	}
}

// TestFlagsBeforeSubcommand gives flags before a subcommand's name: those
// it has a use for apply, and any other is refused in one sentence.
func TestFlagsBeforeSubcommand(t *testing.T) {
	exe, err := filepath.EvalSymlinks(binary)
	if err != nil {
		t.Fatal(err)
	}
	tmp := resolvedTempDir(t)
	root := mkdir(t, filepath.Join(tmp, "module"))
	elsewhere := mkdir(t, filepath.Join(tmp, "elsewhere"))

	out, errOut, code := runIn(t, elsewhere, nil, "--root", root, "config", "claude")
	want := jsonSnippet(map[string]any{"mcpServers": map[string]any{"goplsmcp": map[string]any{"type": "stdio", "command": exe, "args": []string{"--root", root}}}})
	if code != 0 {
		t.Fatalf("--root DIR config claude: exit %d: %s", code, errOut)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("--root DIR config claude (-want +got):\n%s", diff)
	}
	// The subcommand's own --root wins over the one before it.
	out, _, _ = runIn(t, elsewhere, nil, "--root", elsewhere, "config", "claude", "--root", root)
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("--root A config claude --root DIR (-want +got):\n%s", diff)
	}

	if _, errOut, code := runIn(t, elsewhere, nil, "--root", root, "rules", "--write", "codex"); code != 0 {
		t.Fatalf("--root DIR rules --write codex: exit %d: %s", code, errOut)
	}
	for _, f := range []string{"GOPLSMCP.md", "AGENTS.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("--root DIR rules --write codex did not write %s under DIR: %v", f, err)
		}
	}
	assertNoTempIn(t, elsewhere)

	// This test's runtime directory holds no daemon for a new root.
	out, errOut, code = runIn(t, elsewhere, nil, "--root", root, "daemon", "list")
	if code != 0 || out != "no shared goplsmcp daemon serves "+root+"\n" {
		t.Errorf("--root DIR daemon list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runIn(t, elsewhere, nil, "--root", root, "daemon", "list", "--json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("--root DIR daemon list --json: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runIn(t, elsewhere, nil, "--root", root, "daemon", "stop")
	if code != 0 || out != "no shared goplsmcp daemon to stop\n" {
		t.Errorf("--root DIR daemon stop: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow-write", "config", "claude"}, "--allow-write does not apply to goplsmcp config; of the flags before its name, it takes only --root"},
		{[]string{"--root", root, "instructions"}, "--root does not apply to goplsmcp instructions, which takes no flags"},
		{[]string{"--json", "daemon", "stop"}, "--json does not apply to goplsmcp daemon stop"},
		{[]string{"--timeout", "5s", "rules"}, "--timeout does not apply to goplsmcp rules"},
		{[]string{"--bogus", "config", "claude"}, "flag provided but not defined"},
	} {
		out, errOut, code := runIn(t, elsewhere, nil, tt.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("goplsmcp %s: exit %d, stdout %q, stderr %q; want exit 2 and one line saying %q", strings.Join(tt.args, " "), code, out, errOut, tt.want)
		}
	}
}

// assertNoTempIn fails if dir is not empty.
func assertNoTempIn(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s was written in %s", e.Name(), dir)
	}
}

// resolvedTempDir is a temporary directory by its path free of links, as
// goplsmcp resolves roots.
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
