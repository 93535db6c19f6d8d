//go:build unix

// Windows refuses control characters in file names, which the fixture has.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Control sequences a terminal acts on: retitle the window, clear the
// screen, colours, OSC 52 (set the clipboard), CSI as one C1 character.
const (
	escTitle = "\x1b]0;TITLE\x07"
	escClear = "\x1b[2J"
	escRed   = "\x1b[31m"
	osc52    = "\x1b]52;c;aGVsbG8=\x07"
	c1CSI    = "\u009b"
)

// controlRoot is a module whose doc comments, string constants, struct
// tags, comments, file and directory names hold control characters.
func controlRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"hostile/hostile.go": "package hostile\n\nimport _ \"example.com/m/dir" + escTitle + "\"\n\n" +
			"// Greet says hello." + escTitle + escClear + escRed + "red\x1b[0m " + osc52 + " c1:" + c1CSI + " del:\x7f\n" +
			"func Greet() string { return \"hi" + escClear + "\" }\n\n" +
			"// Tagged has a tag." + escRed + "\n" +
			"type Tagged struct {\n\tName string `json:\"name" + escRed + "\"`\n}\n\n" +
			"// Bad" + escTitle + " is wrong.\n" +
			"const Bad = \"q" + escClear + c1CSI + "\"\n\n" +
			"func use() {\n\t_ = Greet() // " + escClear + "\x07\n\tvar n int = Bad\n\t_ = n\n\tNamed()\n}\n",
		"hostile/name" + escClear + ".go": "package hostile\n\n// Named is in a file with ESC in its name.\nfunc Named() {}\n",
		"zero/zero.go":                    "package zero\n\n// Nul holds a CR: \r here.\nvar Nul = 1\n",
		"dir" + escTitle + "/d.go":        "package d\n\n// D is in a directory with ESC in its name.\nfunc D() {}\n",
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// rawControls lists the control characters (but newline and tab) and
// invalid UTF-8 in s, quoted, with some context.
func rawControls(s string) []string {
	var found []string
	for i, r := range s {
		if r == utf8.RuneError || r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0) {
			lo, hi := max(0, i-20), min(len(s), i+20)
			found = append(found, fmt.Sprintf("%q at %d in %q", r, i, s[lo:hi]))
		}
	}
	return found
}

// jsonControls lists the raw control characters in every string (keys
// too) of a decoded JSON value.
func jsonControls(v any) []string {
	var found []string
	switch v := v.(type) {
	case string:
		found = rawControls(v)
	case []any:
		for _, e := range v {
			found = append(found, jsonControls(e)...)
		}
	case map[string]any:
		for k, e := range v {
			found = append(found, rawControls(k)...)
			found = append(found, jsonControls(e)...)
		}
	}
	return found
}

// controlCalls are the calls that show the repository's text, and what
// each answer must show in place of a control character (so that a call
// which stopped showing the text would not pass).
var controlCalls = []struct{ tool, args, stand string }{
	{"go_describe", `{"file":"hostile/hostile.go","symbol":"Greet"}`, "␛]52;c;aGVsbG8=␇"},
	{"go_search", `{"query":"Named"}`, "name␛[2J.go"},
	// Names are identifiers, and a file argument may not hold a control
	// character: nothing to show but that none slips in.
	{"go_symbols", `{"file":"hostile/hostile.go"}`, ""},
	{"go_package_api", `{"packagePaths":["example.com/m/hostile"]}`, `\u009b`},
	{"go_source", `{"file":"hostile/hostile.go","symbol":"Tagged"}`, "name␛[31m"},
	{"go_source", `{"file":"zero/zero.go","symbol":"Nul"}`, "a CR: ␍ here"},
	{"go_file_context", `{"file":"hostile/hostile.go"}`, "name␛[2J.go"},
	{"go_diagnostics", `{"files":["hostile/hostile.go"]}`, "dir␛]0;TITLE␇"},
	{"go_symbol_references", `{"file":"hostile/hostile.go","symbol":"Greet"}`, "// ␛[2J␇"},
}

// TestNoRawControls runs the tools that show a repository's text on one
// holding terminal control sequences, through a stdio session (the text
// block and every string of structuredContent) and goplsmcp call (its
// text, and the strings of its --json answer): no control character but
// newline and tab reaches the client raw; each shows its stand-in.
func TestNoRawControls(t *testing.T) {
	root := controlRoot(t)
	gopls := goplsPath(t)
	p := startBinary(t, "--root", root, "--gopls", gopls)
	initialized(t, p)
	for i, c := range controlCalls {
		text, structured, isError := callSkipping(p, 100+i, c.tool, c.args)
		if isError {
			t.Errorf("%s %s: error %s", c.tool, c.args, text)
			continue
		}
		for _, f := range rawControls(text) {
			t.Errorf("%s %s: text holds %s", c.tool, c.args, f)
		}
		if structured == nil {
			t.Errorf("%s: no structuredContent", c.tool)
		}
		for _, f := range jsonControls(structured) {
			t.Errorf("%s %s: structuredContent holds %s", c.tool, c.args, f)
		}
		if !strings.Contains(text, c.stand) {
			t.Errorf("%s %s: text lacks %q:\n%s", c.tool, c.args, c.stand, text)
		}
	}

	for _, c := range []struct{ tool, args, stand string }{controlCalls[0], controlCalls[7], controlCalls[8]} {
		stdout, stderr, code := runOnce(t, "", "call", "--root", root, "--gopls", gopls, c.tool, c.args)
		if code != 0 {
			t.Errorf("goplsmcp call %s: exit %d\n%s", c.tool, code, stderr)
		}
		for _, f := range rawControls(stdout) {
			t.Errorf("goplsmcp call %s: stdout holds %s", c.tool, f)
		}
		if !strings.Contains(stdout, c.stand) {
			t.Errorf("goplsmcp call %s: stdout lacks %q:\n%s", c.tool, c.stand, stdout)
		}
	}
	stdout, stderr, code := runOnce(t, "", "call", "--root", root, "--gopls", gopls, "--json", "go_package_api", controlCalls[3].args)
	var v any
	if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil {
		t.Fatalf("goplsmcp call --json go_package_api: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	for _, f := range jsonControls(v) {
		t.Errorf("goplsmcp call --json go_package_api: a decoded string holds %s", f)
	}
}

// callSkipping is p.call, skipping the notifications (gopls's log) that
// come before the answer.
func callSkipping(p *proc, id int, tool, args string) (text string, structured map[string]any, isError bool) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	for {
		m := p.recv()
		if _, ok := m["id"]; !ok {
			for _, f := range jsonControls(m) {
				p.t.Errorf("a notification during %s holds %s", tool, f)
			}
			continue
		}
		res, ok := m["result"].(map[string]any)
		if m["id"] != float64(id) || !ok {
			p.t.Fatalf("answer to call %d (%s): %v", id, tool, m)
		}
		text = res["content"].([]any)[0].(map[string]any)["text"].(string)
		structured, _ = res["structuredContent"].(map[string]any)
		isError, _ = res["isError"].(bool)
		return text, structured, isError
	}
}
