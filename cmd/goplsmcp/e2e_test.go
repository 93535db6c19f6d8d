package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/goplsmcp/goplsmcp/bridge"
)

// binary is the goplsmcp built for this test run; runtimeRoot holds the
// runtime directories of its shared daemons.
var binary, runtimeRoot string

func TestMain(m *testing.M) {
	if sock := os.Getenv("GOPLSMCP_DIAL"); sock != "" {
		dialHelper(sock)
		os.Exit(0)
	}
	if sock := os.Getenv("GOPLSMCP_LISTEN"); sock != "" {
		listenHelper(sock)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "goplsmcp-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "goplsmcp")
	out, err := exec.Command("go", "build", "-race", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building goplsmcp: %v\n%s", err, out)
		os.Exit(1)
	}
	// Sessions of their own unless a test asks to share (share_test.go),
	// and any daemon in a runtime directory of this run's, stopped at the
	// end: inside make test's, when it gives one.
	runtimeRoot, err = os.MkdirTemp(os.Getenv(envRuntimeDir), "rt")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(envShare, "off")
	os.Setenv(envRuntimeDir, runtimeRoot)
	// The journals of applies (docs/safety.md) go to this run's own
	// state directory, not the user's.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	code := m.Run()
	if left := stopTestDaemons(runtimeRoot); left != "" {
		fmt.Fprintln(os.Stderr, "FAIL: daemons survived the tests:", left)
		code = 1
	}
	os.RemoveAll(runtimeRoot)
	os.RemoveAll(dir)
	os.Exit(code)
}

// goplsPath returns the gopls the tests run: the pinned one that make
// builds into bin/, or the one $GOPLSMCP_TEST_GOPLS names (make
// test-gopls-compat names another gopls).
func goplsPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("GOPLSMCP_TEST_GOPLS")
	if p == "" {
		p = "../../bin/gopls"
	}
	p, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run make build (or make test) first", p)
	}
	return p
}

func exampleRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/example")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// proc is goplsmcp running as a child, spoken to in raw JSON lines.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr chan string
	exited chan struct{}
}

func startBinary(t *testing.T, args ...string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(binary, args...))
}

// startCmd starts cmd, which runs goplsmcp directly or through a parent of
// its own, with pipes for its standard streams.
func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	return startCmdWith(t, cmd, (*exec.Cmd).Start)
}

// startCmdWith is startCmd with the call that starts the process, which
// may run it from another thread.
func startCmdWith(t *testing.T, cmd *exec.Cmd, start func(*exec.Cmd) error) *proc {
	t.Helper()
	// The race detector waits a second at exit by default, which would
	// hide how long goplsmcp itself takes to stop.
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 100), stderr: make(chan string, 1000), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case p.stderr <- sc.Text():
			default:
			}
		}
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			// Its own stop takes under 2 s; the rest is room for a busy
			// machine (5 s was not enough at a load of 48).
			cmd.Process.Kill()
			t.Error("goplsmcp did not exit within 20s of its stdin closing")
		}
	})
	return p
}

func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to goplsmcp: %v", err)
	}
}

func (p *proc) recv() map[string]any {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("goplsmcp's stdout ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			p.t.Fatalf("goplsmcp wrote a line that is not JSON: %q", line)
		}
		return m
	case <-time.After(60 * time.Second):
		p.t.Fatal("no answer from goplsmcp within 60s")
	}
	return nil
}

// call sends a tools/call and returns its result's text and structured
// content.
func (p *proc) call(id int, tool string, args string) (text string, structured map[string]any, isError bool) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	m := p.recv()
	if m["id"] != float64(id) {
		p.t.Fatalf("answer to call %d has id %v: %v", id, m["id"], m)
	}
	res, ok := m["result"].(map[string]any)
	if !ok {
		p.t.Fatalf("call %d (%s) failed: %v", id, tool, m)
	}
	text = res["content"].([]any)[0].(map[string]any)["text"].(string)
	structured, _ = res["structuredContent"].(map[string]any)
	isError, _ = res["isError"].(bool)
	return text, structured, isError
}

// goplsPID waits for the log line naming gopls's pid.
func (p *proc) goplsPID() int {
	p.t.Helper()
	return p.stderrPID(`started gopls.* pid=(\d+)`)
}

// stderrPID waits for a stderr line that matches pattern and returns the
// number its group captures.
func (p *proc) stderrPID(pattern string) int {
	p.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line := <-p.stderr:
			if m := re.FindStringSubmatch(line); m != nil {
				pid, _ := strconv.Atoi(m[1])
				return pid
			}
		case <-deadline:
			p.t.Fatalf("goplsmcp wrote no stderr line matching %q within 30s", pattern)
		}
	}
}

func TestEndToEnd(t *testing.T) {
	root := exampleRoot(t)
	p := startBinary(t, "--root", root, "--gopls", goplsPath(t))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`)
	init := p.recv()
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Fatalf("initialize: protocolVersion %v", v)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var names []string
	for _, tool := range p.recv()["result"].(map[string]any)["tools"].([]any) {
		tm := tool.(map[string]any)
		names = append(names, tm["name"].(string))
		for _, f := range []string{"title", "description", "inputSchema", "outputSchema", "annotations"} {
			if tm[f] == nil {
				t.Errorf("tool %s has no %s", tm["name"], f)
			}
		}
	}
	// The registry's order (bridge/catalogue.go).
	want := bridge.DefaultTools()
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}

	tests := []struct {
		tool, args string
		want       string
	}{
		{"go_diagnostics", `{}`,
			"broken/broken.go: 1 error\n" +
				`8:30: cannot use "1" (untyped string constant) as float64 value in struct literal`},
		// shapes.go is clean; the workspace's error is listed too.
		{"go_diagnostics", `{"files":["shapes/shapes.go"]}`,
			"broken/broken.go: 1 error\n" +
				`8:30: cannot use "1" (untyped string constant) as float64 value in struct literal`},
		{"go_definition", `{"file":"report/report.go","symbol":"shapes.TotalArea"}`,
			"shapes/shapes.go:37:6: func TotalArea(shapes ...Shape) float64 {"},
		{"go_definition", `{"file":"main.go","line":13,"column":23}`,
			"report/report.go:11:6: func Summary(list []shapes.Shape) string {"},
		{"go_definition", `{"file":"main.go","line":12,"column":2,"kind":"type"}`,
			"shapes/shapes.go:7:6: type Shape interface {"},
		{"go_describe", `{"file":"main.go","line":12,"column":21,"name":"Summary"}`,
			"position moved from 12:21 to 13:21, where Summary is\n" +
				"func report.Summary(list []shapes.Shape) string\n" +
				"Summary describes a set of shapes in one line."},
		{"go_describe", `{"file":"shapes/shapes.go","symbol":"Rect.Area"}`,
			"func (r Rect) Area() float64\nArea returns the rectangle's area."},
		{"go_symbol_references", `{"file":"shapes/shapes.go","symbol":"Shape"}`,
			"7 references to Shape in 3 files, the declaration at shapes/shapes.go:7:6 included\n" +
				"main.go\n" +
				"12:19: list := []shapes.Shape{shapes.Rect{W: 3, H: 4}, shapes.Circle{R: 1}}\n" +
				"report/report.go\n" +
				"11:28: func Summary(list []shapes.Shape) string {\n" +
				"16:28: func Largest(list []shapes.Shape) shapes.Shape {\n" +
				"16:42: func Largest(list []shapes.Shape) shapes.Shape {\n" +
				"17:18: var best shapes.Shape\n" +
				"shapes/shapes.go\n" +
				"7:6: type Shape interface {\n" +
				"37:26: func TotalArea(shapes ...Shape) float64 {"},
		{"go_symbol_references", `{"file":"main.go","symbol":"shapes.Circle.Area"}`,
			"5 references to Area in 3 files, the declaration at shapes/shapes.go:31:17 included\n" +
				"main.go\n" +
				"14:35: fmt.Println(report.Largest(list).Area())\n" +
				"report/report.go\n" +
				"19:23: if best == nil || s.Area() > best.Area() {\n" +
				"19:37: if best == nil || s.Area() > best.Area() {\n" +
				"shapes/shapes.go\n" +
				"31:17: func (c Circle) Area() float64 { return math.Pi * c.R * c.R }\n" +
				"40:12: sum += s.Area()"},
		{"go_symbol_references", `{"file":"report/report.go","line":19,"column":38,"limit":2}`,
			"5 references to Area in 3 files, the declaration at shapes/shapes.go:9:2 included (list truncated; raise limit to see more)\n" +
				"main.go\n" +
				"14:35: fmt.Println(report.Largest(list).Area())\n" +
				"report/report.go\n" +
				"19:23: if best == nil || s.Area() > best.Area() {\n" +
				"report/report.go: 1 more\n" +
				"shapes/shapes.go: 2 more"},
	}
	for i, tt := range tests {
		text, structured, isError := p.call(10+i, tt.tool, tt.args)
		if isError {
			t.Errorf("%s %s: tool error %q", tt.tool, tt.args, text)
			continue
		}
		if diff := cmp.Diff(tt.want, text); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tool, tt.args, diff)
		}
		if structured == nil {
			t.Errorf("%s %s: no structuredContent", tt.tool, tt.args)
		}
	}

	// Mistakes are tool errors that say what to do, and the session goes on.
	for i, tt := range []struct{ tool, args, want string }{
		{"go_describe", `{"file":"../outside.go","line":1,"column":1}`, "outside the workspace root"},
		{"go_describe", `{"file":"main.go"}`, "pass line and column"},
		{"go_describe", `{"file":"main.go","symbol":"Nope"}`, "not declared"},
		{"go_definition", `{"file":"main.go","line":100,"column":1}`, "past the end of the file"},
	} {
		text, _, isError := p.call(100+i, tt.tool, tt.args)
		if !isError || !strings.Contains(text, tt.want) {
			t.Errorf("%s %s: got isError=%v %q, want a tool error containing %q", tt.tool, tt.args, isError, text, tt.want)
		}
	}
}

func TestStdinCloseStopsGopls(t *testing.T) {
	p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	p.recv()
	pid := p.goplsPID()
	if signalPID(pid, 0) != nil {
		t.Fatalf("gopls %d is not running", pid)
	}
	start := time.Now()
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		t.Fatal("goplsmcp still running 2s after its stdin closed")
	}
	if signalPID(pid, 0) == nil {
		t.Errorf("gopls %d still exists after goplsmcp exited", pid)
	}
	t.Logf("goplsmcp and gopls gone %s after stdin closed", time.Since(start).Round(time.Millisecond))
}

func TestStdoutHoldsOnlyProtocol(t *testing.T) {
	// Every line goplsmcp writes to stdout in a whole session is JSON-RPC.
	p := startBinary(t, "--root", exampleRoot(t), "--gopls", goplsPath(t), "--log-level", "debug")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_diagnostics","arguments":{}}}`)
	p.stdin.Close()
	n := 0
	for line := range p.lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not a JSON-RPC message: %q", line)
		}
		n++
	}
	if n != 2 {
		t.Errorf("got %d stdout lines, want 2 (initialize and the call, answered before exit)", n)
	}
}
