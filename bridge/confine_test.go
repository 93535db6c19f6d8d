package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// TestConfinementEveryTool sends every path-like argument of every tool —
// file, uri, files, file with text, packagePaths, and the prompts' file —
// the ways of naming something outside the root, and checks that each
// call is refused with its sentence, and that nothing of the outside ever
// reached gopls: gopls runs behind a tee that records every byte sent to
// it. The tools are taken from tools/list, so a new tool with a file or
// uri argument is covered without being named here.
func TestConfinementEveryTool(t *testing.T) {
	root := exampleRoot(t)
	outside := realTempDir(t)
	writeWorkspaceFile(t, outside, "secret.go", []byte("package secret\n\n// Secret must never reach gopls.\nfunc Secret() {}\n"))
	for link, target := range map[string]string{
		"out.go":   filepath.Join(outside, "secret.go"),
		"outdir":   outside,
		"dangling": filepath.Join(outside, "missing"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "pipe"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(root, "pipe", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	goroot := goEnv(t, "GOROOT")

	st, logPath := startTeeStack(t, root)
	ctx := testCtx(t)

	var list struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Properties map[string]json.RawMessage
			}
		}
	}
	if err := st.client.Call(ctx, "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}

	// The cases. opens marks those that only a tool opening the file
	// refuses; go_close names buffers and opens nothing.
	type pathCase struct {
		value, want string
		opens       bool
	}
	fileCases := []pathCase{
		{value: "../outside.go", want: "is outside the workspace root"},
		{value: "shapes/../../x.go", want: "is outside the workspace root"},
		{value: filepath.Join(outside, "secret.go"), want: "is outside the workspace root"},
		{value: "/etc/passwd", want: "is outside the workspace root"},
		{value: "out.go", want: "leads outside the workspace root through a symbolic link"},
		{value: "outdir/secret.go", want: "leads outside the workspace root through a symbolic link"},
		{value: "dangling", want: "is a symbolic link that leads nowhere"},
		{value: "dangling/x.go", want: "lies under a symbolic link that leads nowhere", opens: true},
		{value: "pipe/fifo", want: "is not a regular file", opens: true},
		{value: "shapes", want: "is a directory", opens: true},
		{value: "missing.go", want: "does not exist", opens: true},
		{value: "main.go\x00.txt", want: "control characters"},
		{value: "main.go\n", want: "control characters"},
		{value: `C:\Windows\win.ini`, want: "is a Windows path"},
		{value: "C:/x.go", want: "is a Windows path"},
		{value: `\\server\share\x.go`, want: "is a Windows path"},
		{value: `shapes\shapes.go`, want: "contains a backslash"},
		{value: "%2e%2e/outside.go", want: "percent-encoding"},
		{value: "shapes%2fshapes.go", want: "percent-encoding"},
		{value: "file://" + root + "/main.go", want: "is a URI, not a path"},
		{value: "$GOROOT/src/fmt/print.go", want: "read-only context"},
		{value: goroot + "/src/fmt/print.go", want: "read-only context"},
		{value: "~/x.go", want: "not expanded"},
		{value: strings.Repeat("a/", 2100) + "x.go", want: "longer than 4096 bytes"},
	}
	r := "file://" + root
	uriCases := []pathCase{
		{value: "file://" + outside + "/secret.go", want: "is outside the workspace root"},
		{value: "file:///etc/passwd", want: "is outside the workspace root"},
		{value: r + "/../x.go", want: "is outside the workspace root"},
		{value: "file://" + goroot + "/src/fmt/print.go", want: "read-only context"},
		{value: r + "/out.go", want: "leads outside the workspace root through a symbolic link"},
		{value: r + "/outdir/secret.go", want: "leads outside the workspace root through a symbolic link"},
		{value: r + "/dangling", want: "is a symbolic link that leads nowhere"},
		{value: r + "/%2e%2e/x.go", want: "percent-encodes"},
		{value: r + "/shapes%2Fshapes.go", want: "percent-encodes"},
		{value: r + "/%00.go", want: "percent-encodes"},
		{value: r + "/%ff.go", want: "invalid UTF-8"},
		{value: r + "/main.go?x=1", want: "has a query or fragment"},
		{value: r + "/main.go#L1", want: "has a query or fragment"},
		{value: "file://evil.example" + root + "/main.go", want: "names a host"},
		{value: "http://example.com/main.go", want: "is not a file:// URI"},
		{value: "untitled:Untitled-1", want: "is not a file:// URI"},
		{value: root + "/main.go", want: "is not a file:// URI"},
		{value: "file:main.go", want: "is not an absolute file:// URI"},
		{value: r + "/main.go\n", want: "control characters"},
	}
	dirCases := []pathCase{
		{value: "../outside", want: "is outside the workspace root"},
		{value: "shapes/../..", want: "is outside the workspace root"},
		{value: outside, want: "is outside the workspace root"},
		{value: "/etc", want: "is outside the workspace root"},
		{value: "file://" + outside, want: "is outside the workspace root"},
		{value: "file:///etc", want: "is outside the workspace root"},
		{value: r + "/..", want: "is outside the workspace root"},
		{value: "outdir", want: "leads outside the workspace root through a symbolic link"},
		{value: r + "/outdir", want: "leads outside the workspace root through a symbolic link"},
		{value: "dangling", want: "does not exist"},
		{value: "main.go", want: "is not a directory"},
		{value: goroot + "/src/fmt", want: "read-only context"},
		{value: "shapes\x00", want: "control characters"},
		{value: "C:/x", want: "is a Windows path"},
		{value: "%2e%2e/x", want: "percent-encoding"},
		{value: r + "/%2e%2e", want: "percent-encodes"},
		{value: "http://example.com/x", want: "is not a file:// URI"},
	}
	overlayCases := []pathCase{
		{value: "outdir/new.go", want: "leads outside the workspace root through a symbolic link"},
		{value: "dangling/new.go", want: "lies under a symbolic link that leads nowhere"},
		{value: "out.go", want: "leads outside the workspace root through a symbolic link"},
		{value: "../new.go", want: "is outside the workspace root"},
		{value: "main.go/new.go", want: "not a directory"},
		{value: "pipe/fifo", want: "is not a regular file"},
		{value: "%2e%2e/new.go", want: "percent-encoding"},
	}

	calls := 0
	expect := func(tool string, args map[string]any, want string) {
		t.Helper()
		calls++
		res, err := st.client.CallTool(ctx, tool, args)
		if err != nil {
			t.Errorf("%s %.200v: %v", tool, args, err)
			return
		}
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s %.200v: got isError=%v %q\nwant a tool error containing %q", tool, args, res.IsError, res.Text(), want)
		}
		if strings.Contains(res.Text(), "\n") {
			t.Errorf("%s %.200v: the error is not one line: %q", tool, args, res.Text())
		}
	}
	// with adds what each tool needs besides the code to work on.
	with := func(props map[string]json.RawMessage, args map[string]any) map[string]any {
		if _, ok := props["line"]; ok {
			args["line"], args["column"] = 1, 1
		}
		if _, ok := props["new_name"]; ok {
			args["new_name"] = "Renamed"
		}
		return args
	}
	covered := map[string][]string{}
	for _, tool := range list.Tools {
		props := tool.InputSchema.Properties
		if _, ok := props["file"]; ok {
			covered["file"] = append(covered["file"], tool.Name)
			for _, c := range fileCases {
				if c.opens && tool.Name == "go_close" {
					continue
				}
				expect(tool.Name, with(props, map[string]any{"file": c.value}), c.want)
			}
		}
		if _, ok := props["uri"]; ok {
			covered["uri"] = append(covered["uri"], tool.Name)
			for _, c := range uriCases {
				expect(tool.Name, with(props, map[string]any{"uri": c.value}), c.want)
			}
		}
		_, hasFile := props["file"]
		if _, ok := props["text"]; ok && hasFile {
			covered["file+text"] = append(covered["file+text"], tool.Name)
			for _, c := range overlayCases {
				expect(tool.Name, with(props, map[string]any{"file": c.value, "text": "package main\n\nfunc Injected() {}\n"}), c.want)
			}
		}
		if _, ok := props["dir"]; ok {
			covered["dir"] = append(covered["dir"], tool.Name)
			for _, c := range dirCases {
				expect(tool.Name, map[string]any{"dir": c.value}, c.want)
			}
		}
		if _, ok := props["files"]; ok {
			covered["files"] = append(covered["files"], tool.Name)
			for _, c := range fileCases {
				// A good file first: nothing is opened until all are
				// checked.
				expect(tool.Name, map[string]any{"files": []string{"main.go", c.value}}, c.want)
			}
		}
		if _, ok := props["packagePaths"]; ok {
			covered["packagePaths"] = append(covered["packagePaths"], tool.Name)
			for _, p := range []string{"../shapes", "./shapes", outside, "/etc", "...", "C:/x", "%2e%2e/x", "-toolexec=x", "a//b", "fmt\x00"} {
				expect(tool.Name, map[string]any{"packagePaths": []string{"fmt", p}}, "is not an import path")
			}
			// A directory of the root that is a link out is no package.
			expect(tool.Name, map[string]any{"packagePaths": []string{"outdir"}}, "no such package")
		}
	}
	for _, kind := range []string{"file", "uri", "file+text", "files", "packagePaths", "dir"} {
		if len(covered[kind]) == 0 {
			t.Errorf("no tool takes %s; the test covers nothing of it", kind)
		}
	}
	t.Logf("%d refused calls; tools taking file: %d, uri: %d, file+text: %d, files: %v, packagePaths: %v, dir: %v",
		calls, len(covered["file"]), len(covered["uri"]), len(covered["file+text"]), covered["files"], covered["packagePaths"], covered["dir"])

	// The prompts' file argument.
	for _, prompt := range []string{"explain-go", "review-go"} {
		for _, c := range fileCases {
			err := st.client.Call(ctx, "prompts/get", map[string]any{"name": prompt, "arguments": map[string]string{"file": c.value}}, nil)
			if rpcCode(err) != mcp.CodeInvalidParams || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s file %.80q: got %v, want -32602 containing %q", prompt, c.value, err, c.want)
			}
		}
	}

	// The scratch directory of snippets must not lead out either.
	snippet := map[string]any{"text": "package scratch\n\nfunc S() {}\n"}
	scratch := filepath.Join(root, ".goplsmcp")
	if err := os.Symlink(outside, scratch); err != nil {
		t.Fatal(err)
	}
	expect("go_diagnostics", snippet, "snippets are unavailable")
	if err := os.Remove(scratch); err != nil {
		t.Fatal(err)
	}
	if res, err := st.client.CallTool(ctx, "go_diagnostics", snippet); err != nil || res.IsError {
		t.Fatalf("a snippet once the scratch directory is plain: %v %v", err, res)
	}

	// Calls inside the root still work, so the tee sees real traffic.
	if res, err := st.client.CallTool(ctx, "go_describe", map[string]any{"file": "shapes/shapes.go", "symbol": "Shape"}); err != nil || res.IsError {
		t.Fatalf("a good call: %v %v", err, res)
	}
	sent, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sent, []byte(lspclient.FileURI(filepath.Join(root, "shapes", "shapes.go")))) {
		t.Fatalf("gopls's recorded input (%d bytes) does not name shapes/shapes.go; the record is broken", len(sent))
	}
	for _, leak := range []string{outside, "/etc/passwd", "Secret must never", "secret.go", "Injected", "win.ini", "fifo"} {
		if i := bytes.Index(sent, []byte(leak)); i >= 0 {
			t.Errorf("gopls was sent %q: ...%s...", leak, sent[max(0, i-200):min(len(sent), i+200)])
		}
	}
}

// startTeeStack is startStackWith with gopls behind a shell pipeline that
// copies everything sent to gopls into a file, whose path it returns.
func startTeeStack(t *testing.T, root string) (*stack, string) {
	t.Helper()
	gopls := testGopls(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "sent-to-gopls")
	wrapper := filepath.Join(dir, "gopls")
	script := fmt.Sprintf("#!/bin/sh\ntee -a %q | %q \"$@\"\n", logPath, gopls)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return startStackOf(t, root, stackConfig{lsp: lspclient.Options{Gopls: wrapper}}), logPath
}

// goEnv is one variable of the go command's environment.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	v, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
