//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// goplsmcp lsp (docs/editors.md) through the real binary, driven by a
// plain LSP client: an editor served by the shared daemon's gopls beside
// agents' sessions.

// lspEditor is goplsmcp lsp running as a child, spoken to in LSP.
type lspEditor struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	nextID int

	mu      sync.Mutex
	answers map[int]chan map[string]any
	diags   map[string][]string // the messages last published, by URI
	seq     map[string]int      // the publications, by URI
	seen    []string            // every message ever published
	changed chan struct{}       // closed and replaced at each publication
	exited  chan struct{}
}

func startEditor(t *testing.T, sh *shared, root string, args ...string) *lspEditor {
	t.Helper()
	return startEditorLog(t, sh, root, os.Stderr, args...)
}

// startEditorLog is startEditor with goplsmcp lsp's log written to log.
func startEditorLog(t *testing.T, sh *shared, root string, log io.Writer, args ...string) *lspEditor {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"lsp", "-mode=stdio", "-rpc.trace", "--gopls", goplsPath(t)}, args...)...)
	cmd.Env = append(append([]string(nil), sh.env...), "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &lspEditor{t: t, cmd: cmd, stdin: stdin, answers: map[int]chan map[string]any{}, diags: map[string][]string{}, seq: map[string]int{},
		changed: make(chan struct{}), exited: make(chan struct{})}
	go e.read(bufio.NewReader(stdout))
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-e.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("goplsmcp lsp did not exit within 10s of its stdin closing")
		}
	})
	res := e.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + root, "capabilities": map[string]any{}})
	if caps, _ := res["capabilities"].(map[string]any); caps["hoverProvider"] == nil {
		t.Fatalf("initialize answered no hoverProvider: %v", res)
	}
	e.notify("initialized", map[string]any{})
	return e
}

func (e *lspEditor) read(r *bufio.Reader) {
	defer func() {
		e.cmd.Wait()
		close(e.exited)
	}()
	for {
		var n int
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		method, _ := m["method"].(string)
		switch {
		case method == "textDocument/publishDiagnostics":
			p := m["params"].(map[string]any)
			var msgs []string
			for _, d := range p["diagnostics"].([]any) {
				msgs = append(msgs, d.(map[string]any)["message"].(string))
			}
			e.mu.Lock()
			e.diags[p["uri"].(string)] = msgs
			e.seq[p["uri"].(string)]++
			e.seen = append(e.seen, msgs...)
			close(e.changed)
			e.changed = make(chan struct{})
			e.mu.Unlock()
		case method != "" && m["id"] != nil:
			// A request of the server's: answered as a plain editor would.
			e.write(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
		case method == "":
			id, _ := m["id"].(float64)
			e.mu.Lock()
			ch := e.answers[int(id)]
			delete(e.answers, int(id))
			e.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (e *lspEditor) write(v any) {
	e.t.Helper()
	body, _ := json.Marshal(v)
	if _, err := fmt.Fprintf(e.stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		e.t.Fatalf("writing to goplsmcp lsp: %v", err)
	}
}

func (e *lspEditor) notify(method string, params any) {
	e.t.Helper()
	e.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and returns its result, failing on an error.
func (e *lspEditor) call(method string, params any) map[string]any {
	e.t.Helper()
	m := e.request(method, params)
	if m["error"] != nil {
		e.t.Fatalf("%s: %v", method, m["error"])
	}
	res, _ := m["result"].(map[string]any)
	if res == nil {
		if list, ok := m["result"].([]any); ok && len(list) > 0 {
			res, _ = list[0].(map[string]any)
		}
	}
	return res
}

func (e *lspEditor) request(method string, params any) map[string]any {
	e.t.Helper()
	ch := e.send(method, params)
	select {
	case m := <-ch:
		return m
	case <-time.After(90 * time.Second):
		e.t.Fatalf("no answer to %s within 90s", method)
	}
	return nil
}

// send sends a request; its answer comes on the channel.
func (e *lspEditor) send(method string, params any) chan map[string]any {
	e.t.Helper()
	e.mu.Lock()
	e.nextID++
	id := e.nextID
	ch := make(chan map[string]any, 1)
	e.answers[id] = ch
	e.mu.Unlock()
	e.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// published returns the number of publications of uri's diagnostics so
// far.
func (e *lspEditor) published(uri string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seq[uri]
}

// waitDiags waits until the diagnostics published for uri, after the
// first publications since, satisfy ok.
func (e *lspEditor) waitDiags(uri string, since int, what string, ok func([]string) bool) []string {
	e.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		e.mu.Lock()
		got, n, changed := e.diags[uri], e.seq[uri], e.changed
		e.mu.Unlock()
		if n > since && ok(got) {
			return got
		}
		select {
		case <-changed:
		case <-deadline:
			e.t.Fatalf("no diagnostics of %s %s within 60s; last: %q", filepath.Base(uri), what, got)
		}
	}
}

func containsAny(list []string, s string) bool {
	for _, m := range list {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// unsavedReport is the editor's unsaved change to report/report.go: a
// line appended, which gopls reports as an error.
const (
	unsavedLine  = "\nvar X int = \"s\"\n"
	unsavedError = `cannot use "s" (untyped string constant) as int value`
)

// openAndBreak opens report/report.go in the editor and types
// unsavedLine at its end, as an incremental change.
func (e *lspEditor) openAndBreak(root string) (uri string) {
	e.t.Helper()
	path := filepath.Join(root, "report", "report.go")
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	uri = "file://" + path
	e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(data)}})
	lines := strings.Count(string(data), "\n")
	e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": lines, "character": 0}, "end": map[string]any{"line": lines, "character": 0}}, "text": unsavedLine}}})
	return uri
}

func TestLSPEditorOverTheDaemon(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	ed := startEditor(t, sh, root)
	uri := ed.openAndBreak(root)
	ed.waitDiags(uri, 0, "naming the unsaved error", func(d []string) bool { return containsAny(d, unsavedError) })

	// Hover and definition on report.Summary in main.go, as on disk.
	mainURI := "file://" + filepath.Join(root, "main.go")
	pos := map[string]any{"textDocument": map[string]any{"uri": mainURI}, "position": map[string]any{"line": 12, "character": 21}}
	hover := ed.call("textDocument/hover", pos)
	if text := fmt.Sprint(hover["contents"]); !strings.Contains(text, "Summary(list []shapes.Shape) string") {
		t.Errorf("hover on report.Summary: %v", hover)
	}
	def := ed.call("textDocument/definition", pos)
	if got := fmt.Sprint(def["uri"]); got != uri {
		t.Errorf("definition of report.Summary is in %s, want %s", got, uri)
	}

	// One gopls: the daemon's, which an agent session shares.
	list := sh.waitList("daemon serving the editor", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 1 })
	agent := sh.session("--root", root, "--gopls", goplsPath(t))
	sh.waitList("daemon serving the editor and an agent", func(l []daemonInfo) bool {
		return len(l) == 1 && l[0].Sessions == 2 && l[0].PID == list[0].PID
	})
	if text, _, _ := agent.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
		t.Errorf("the agent's go_workspace:\n%s", text)
	}

	// kill -9 of the daemon: goplsmcp lsp starts another and gives it the
	// editor's unsaved buffer again.
	before := ed.published(uri)
	if err := syscall.Kill(list[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitDead(20*time.Second, list[0].PID, list[0].GoplsPID) {
		t.Fatalf("the killed daemon %d or its gopls %d still runs after 20s", list[0].PID, list[0].GoplsPID)
	}
	hover2 := ed.call("textDocument/hover", pos)
	if diff := cmp.Diff(hover, hover2); diff != "" {
		t.Errorf("hover after the daemon was killed (-before +after):\n%s", diff)
	}
	// Published again by the new gopls, which has the unsaved text.
	ed.waitDiags(uri, before, "naming the unsaved error after the daemon was killed", func(d []string) bool { return containsAny(d, unsavedError) })
	def2 := ed.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": strings.Count(readFile(t, filepath.Join(root, "report", "report.go")), "\n") + 1, "character": 4}})
	if got := fmt.Sprint(def2["uri"]); got != uri {
		t.Errorf("definition of the unsaved X after the daemon was killed: %v", def2)
	}

	// The editor's shutdown and exit end its process, not the daemon.
	ed.request("shutdown", nil)
	ed.notify("exit", nil)
	select {
	case <-ed.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("goplsmcp lsp did not exit within 10s of exit")
	}
	if text, _, isErr := agent.call(2, "go_workspace", `{}`); isErr || !strings.Contains(text, "packages: 4") {
		t.Errorf("the agent after the editor exited:\n%s", text)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// agentText is an agent's own unsaved text of report/report.go, and the
// error gopls finds in it.
const (
	agentReport = `{"file":"report/report.go","text":"package report\n\nvar Y string = 1\n"}`
	agentError  = `cannot use 1 (untyped int constant) as string value`
)

// checkAgentUnseen holds the editor to never having been published the
// agent's own unsaved error, once gopls is back on the editor's view:
// the editor's own error published again after the agent's call.
func checkAgentUnseen(t *testing.T, ed *lspEditor, uri string, since int) {
	t.Helper()
	ed.waitDiags(uri, since, "naming the editor's error after the agent's call", func(d []string) bool { return containsAny(d, unsavedError) })
	ed.mu.Lock()
	seen := slices.Clone(ed.seen)
	ed.mu.Unlock()
	if containsAny(seen, agentError) {
		t.Errorf("the editor was published the agent's unsaved error %q: %q", agentError, seen)
	}
}

// TestLSPRequestInFlightWhenDaemonDies: a request of the editor's that
// gopls has not answered when the daemon dies is answered by the next
// daemon. goplsmcp lsp handed the editor's stdio to the daemon, so it
// knows of the request only from the daemon's report of it.
func TestLSPRequestInFlightWhenDaemonDies(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	log := &logWatch{w: os.Stderr, changed: make(chan struct{})}
	ed := startEditorLog(t, sh, root, log, "--log-level", "debug")
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(sh.dir, "*.log"))
			for _, f := range logs {
				t.Logf("the daemon's log %s:\n%s", filepath.Base(f), readFile(t, f))
			}
		}
	})
	pos := map[string]any{"textDocument": map[string]any{"uri": "file://" + filepath.Join(root, "main.go")}, "position": map[string]any{"line": 12, "character": 21}}
	hover := ed.request("textDocument/hover", pos)
	list := sh.waitList("daemon serving the editor", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 1 })
	if !log.has("handler=lsp-handed") {
		t.Fatal("goplsmcp lsp did not hand the editor's stdio to the daemon (no handler=lsp-handed in its log)")
	}

	// gopls stopped, so that the hover stays unanswered until the
	// daemon has reported it; then the daemon dies (its gopls with it).
	if err := syscall.Kill(list[0].GoplsPID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(list[0].GoplsPID, syscall.SIGCONT) })
	const reported = "reports a request of the editor's unanswered"
	before := log.count(reported) // the first hover too, if it was slow
	answer := ed.send("textDocument/hover", pos)
	log.wait(t, reported, before+1)
	if err := syscall.Kill(list[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitDead(20*time.Second, list[0].PID, list[0].GoplsPID) {
		t.Fatalf("the killed daemon %d or its gopls %d still runs after 20s", list[0].PID, list[0].GoplsPID)
	}
	select {
	case got := <-answer:
		if diff := cmp.Diff(hover["result"], got["result"]); diff != "" || got["error"] != nil {
			t.Errorf("the hover in flight when the daemon died, answered by the next (-before +after):\n%s%v", diff, got["error"])
		}
	case <-time.After(90 * time.Second):
		t.Fatal("the hover in flight when the daemon died had no answer within 90s")
	}
}

// TestLSPEditorCancels: the editor's $/cancelRequest ends its request at
// once, answered as cancelled, even while gopls does not answer.
func TestLSPEditorCancels(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	ed := startEditor(t, sh, root)
	pos := map[string]any{"textDocument": map[string]any{"uri": "file://" + filepath.Join(root, "main.go")}, "position": map[string]any{"line": 12, "character": 21}}
	ed.call("textDocument/hover", pos)
	list := sh.waitList("daemon serving the editor", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 1 })
	if err := syscall.Kill(list[0].GoplsPID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(list[0].GoplsPID, syscall.SIGCONT)
	// Two requests, so that the second's bookkeeping cannot stand in
	// for the first's; the first is cancelled.
	first := ed.send("textDocument/hover", pos)
	ed.mu.Lock()
	id := ed.nextID
	ed.mu.Unlock()
	second := ed.send("textDocument/definition", pos)
	ed.notify("$/cancelRequest", map[string]any{"id": id})
	select {
	case m := <-first:
		e, _ := m["error"].(map[string]any)
		if code, _ := e["code"].(float64); code != -32800 {
			t.Errorf("the cancelled hover was answered %v, want the error RequestCancelled (-32800)", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled hover had no answer within 30s")
	}
	select {
	case m := <-second:
		t.Errorf("the definition, not cancelled, was answered while gopls is stopped: %v", m)
	default:
	}
	syscall.Kill(list[0].GoplsPID, syscall.SIGCONT)
	select {
	case m := <-second:
		if m["error"] != nil {
			t.Errorf("the definition, not cancelled: %v", m["error"])
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the definition, not cancelled, had no answer within 60s of gopls going on")
	}
}

// logWatch passes a process's log on to w and lets a test wait for a
// line.
type logWatch struct {
	w       io.Writer
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{}
}

func (l *logWatch) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.text.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
	return l.w.Write(p)
}

func (l *logWatch) has(s string) bool { return l.count(s) > 0 }

// count is how many times the log has said s.
func (l *logWatch) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.text.String(), s)
}

// wait waits until the log has said s n times.
func (l *logWatch) wait(t *testing.T, s string, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		l.mu.Lock()
		found, changed := strings.Count(l.text.String(), s) >= n, l.changed
		l.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the log did not say %q %d times within 60s", s, n)
		}
	}
}

func TestLSPUnsavedNotShared(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	ed := startEditor(t, sh, root, "--allow-write")
	uri := ed.openAndBreak(root)
	ed.waitDiags(uri, 0, "naming the unsaved error", func(d []string) bool { return containsAny(d, unsavedError) })
	agent := sh.session("--root", root, "--gopls", goplsPath(t), "--allow-write")

	// Without consent the agent sees the disk alone.
	text, _, _ := agent.call(1, "go_diagnostics", `{"file":"report/report.go"}`)
	if strings.Contains(text, unsavedError) || strings.Contains(text, "editor") {
		t.Errorf("without consent, the agent's diagnostics of report.go see the editor's buffer:\n%s", text)
	}
	// Nor does the editor see the agent's own unsaved text.
	before := ed.published(uri)
	if text, _, _ := agent.call(2, "go_diagnostics", agentReport); !strings.Contains(text, agentError) {
		t.Fatalf("the agent's diagnostics of its own unsaved report.go:\n%s", text)
	}
	checkAgentUnseen(t, ed, uri, before)
	hover := ed.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": strings.Count(readFile(t, filepath.Join(root, "report", "report.go")), "\n") + 1, "character": 4}})
	if text := fmt.Sprint(hover["contents"]); !strings.Contains(text, "var X int") {
		t.Errorf("the editor's hover on its unsaved X after the agent's calls: %v", hover)
	}

	// An apply on a file the editor holds unsaved is refused.
	text, _, isErr := agent.call(3, "go_rename_symbol", `{"file":"report/report.go","symbol":"Largest","new_name":"Biggest","apply":true}`)
	if !isErr || !strings.Contains(text, "unsaved changes in the editor") {
		t.Errorf("apply on report.go, unsaved in the editor: isError %v:\n%s", isErr, text)
	}
	if data := readFile(t, filepath.Join(root, "report", "report.go")); strings.Contains(data, "Biggest") {
		t.Errorf("the refused apply wrote report.go:\n%s", data)
	}
}

func TestLSPUnsavedShared(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	ed := startEditor(t, sh, root, "--share-unsaved")
	uri := ed.openAndBreak(root)
	ed.waitDiags(uri, 0, "naming the unsaved error", func(d []string) bool { return containsAny(d, unsavedError) })
	agent := sh.session("--root", root, "--gopls", goplsPath(t))

	// With consent the agent sees the editor's buffer, and is told so
	// on both channels.
	const seenNote = "unsaved in the editor, seen as the editor holds them (not as on disk): report/report.go"
	text, structured, _ := agent.call(1, "go_diagnostics", `{"file":"report/report.go"}`)
	if !strings.Contains(text, unsavedError) || !strings.Contains(text, seenNote) {
		t.Errorf("with consent, the agent's diagnostics of report.go:\n%s", text)
	}
	// The editor's text is no buffer of the agent's to name.
	if strings.HasPrefix(text, "buffer ") || structured["uri"] != nil {
		t.Errorf("with consent, the agent's diagnostics name the editor's buffer as its own:\n%s", text)
	}
	if notes, _ := structured["notes"].([]any); !slices.Contains(notes, any(seenNote)) {
		t.Errorf("with consent, the structured diagnostics of report.go lack the note %q: %v", seenNote, structured)
	}
	// Its own unsaved text lies over the editor's, and reaches no editor.
	before := ed.published(uri)
	text, _, _ = agent.call(2, "go_diagnostics", agentReport)
	_, withEdit, _ := strings.Cut(text, "all diagnostics with the edit:")
	if !strings.Contains(withEdit, agentError) || strings.Contains(withEdit, unsavedError) || strings.Contains(text, "seen as the editor holds them") {
		t.Errorf("the agent's diagnostics of its own unsaved report.go, over the editor's:\n%s", text)
	}
	checkAgentUnseen(t, ed, uri, before)
	// The agent's text stays its own; another agent sees the editor's.
	other := sh.session("--root", root, "--gopls", goplsPath(t))
	if text, _, _ := other.call(1, "go_diagnostics", `{"file":"report/report.go"}`); !strings.Contains(text, unsavedError) || strings.Contains(text, agentError) {
		t.Errorf("a second agent's diagnostics of report.go:\n%s", text)
	}

	// The editor closes: agents see the disk again, and go on.
	ed.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	ed.request("shutdown", nil)
	ed.notify("exit", nil)
	<-ed.exited
	if text, _, _ := other.call(2, "go_diagnostics", `{"file":"report/report.go"}`); strings.Contains(text, unsavedError) || strings.Contains(text, "editor") {
		t.Errorf("after the editor closed, the agent's diagnostics of report.go:\n%s", text)
	}
}

// TestLSPAgentWritesBesideEditor starts the editor and the agents as
// their users start them: the editor's goplsmcp lsp with no goplsmcp
// flags, its workspace opened through a symbolic link; the agent that
// applies renames with --allow-write and a --tools list; another with
// no flags. The flags of a session split no daemon: all three share one
// gopls, so the writing agent's apply on the file the editor holds
// unsaved is refused, and each agent may do what it was started to.
func TestLSPAgentWritesBesideEditor(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	link := filepath.Join(t.TempDir(), "workspace")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	ed := startEditor(t, sh, link)
	uri := ed.openAndBreak(link)
	ed.waitDiags(uri, 0, "naming the unsaved error", func(d []string) bool { return containsAny(d, unsavedError) })
	writer := sh.session("--root", root, "--gopls", goplsPath(t), "--allow-write", "--tools", "go_rename_symbol,go_diagnostics")
	reader := sh.session("--root", root, "--gopls", goplsPath(t))

	if list := sh.list(); len(list) != 1 {
		t.Errorf("the editor and two agents started with other flags run %d daemons, want 1: %+v", len(list), list)
	}
	// The apply on report.go, unsaved in the editor (through the link),
	// is refused, and nothing is written.
	text, _, isErr := writer.call(1, "go_rename_symbol", `{"file":"report/report.go","symbol":"Largest","new_name":"Biggest","apply":true}`)
	if !isErr || !strings.Contains(text, "unsaved changes in the editor") {
		t.Errorf("apply on report.go, unsaved in the editor: isError %v:\n%s", isErr, text)
	}
	for _, f := range []string{"report/report.go", "main.go"} {
		if data := readFile(t, filepath.Join(root, f)); strings.Contains(data, "Biggest") {
			t.Errorf("the refused apply wrote %s:\n%s", f, data)
		}
	}
	// Each agent's own flags hold on the shared daemon: the writer has
	// its tools alone and may write a file the editor does not hold; the
	// reader may not write.
	writer.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var names []string
	for _, tool := range writer.recv()["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if diff := cmp.Diff([]string{"go_diagnostics", "go_rename_symbol"}, names); diff != "" {
		t.Errorf("the writer's tools/list (-want +got):\n%s", diff)
	}
	const rename = `{"file":"shapes/shapes.go","symbol":"TotalArea","new_name":"SumArea","apply":true}`
	if text, _, isErr := reader.call(1, "go_rename_symbol", rename); !isErr || !strings.Contains(text, "--allow-write") {
		t.Errorf("the reader's apply: isError %v:\n%s", isErr, text)
	}
	if data := readFile(t, filepath.Join(root, "shapes", "shapes.go")); strings.Contains(data, "SumArea") {
		t.Errorf("the reader's refused apply wrote shapes.go")
	}
	const renameMain = `{"file":"main.go","symbol":"main","new_name":"main2","apply":true}`
	if text, _, isErr := writer.call(3, "go_rename_symbol", renameMain); isErr {
		t.Errorf("the writer's apply on main.go, which the editor does not hold: %s", text)
	} else if data := readFile(t, filepath.Join(root, "main.go")); !strings.Contains(data, "func main2") {
		t.Errorf("the writer's apply did not write main.go:\n%s", data)
	}
}

// TestLSPEditorSeesNoSnippet: an agent's snippet, which calls the
// editor's report.Largest, is a package in gopls's view for as long as
// the agent's session lives; none of the answers to the editor's
// requests names it or shows its text, request kind by request kind.
func TestLSPEditorSeesNoSnippet(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	ed := startEditor(t, sh, root)
	uri := ed.openAndBreak(root)
	ed.waitDiags(uri, 0, "naming the unsaved error", func(d []string) bool { return containsAny(d, unsavedError) })
	agent := sh.session("--root", root, "--gopls", goplsPath(t))
	const snippet = `{"text":"package scratch\n\nimport \"example.com/shapes/report\"\n\n// AgentSecretDoc is the agent's own.\nfunc AgentSecret() { _ = report.Largest(nil) }\n"}`
	_, structured, isErr := agent.call(1, "go_diagnostics", snippet)
	snippetURI, _ := structured["uri"].(string)
	if isErr || !strings.Contains(snippetURI, ".goplsmcp/scratch/") {
		t.Fatalf("the agent's snippet: isError %v, uri %q: %v", isErr, snippetURI, structured)
	}

	text := readFile(t, filepath.Join(root, "report", "report.go"))
	line := strings.Count(text[:strings.Index(text, "func Largest")], "\n")
	at := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": 6}}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range at {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	var item any
	if m := ed.request("textDocument/prepareCallHierarchy", at); m["error"] == nil {
		if list, _ := m["result"].([]any); len(list) > 0 {
			item = list[0]
		}
	}
	if item == nil {
		t.Fatal("no call hierarchy item for Largest")
	}
	requests := []struct {
		method string
		params any
	}{
		{"workspace/symbol", map[string]any{"query": "AgentSecret"}},
		{"textDocument/references", with(map[string]any{"context": map[string]any{"includeDeclaration": true}})},
		{"callHierarchy/incomingCalls", map[string]any{"item": item}},
		{"textDocument/rename", with(map[string]any{"newName": "Biggest"})},
		{"textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range":   map[string]any{"start": map[string]any{"line": line, "character": 5}, "end": map[string]any{"line": line, "character": 12}},
			"context": map[string]any{"diagnostics": []any{}}}},
		{"textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": map[string]any{"line": strings.Count(text, "\n") + 1, "character": 4}}},
		{"textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": snippetURI}, "position": map[string]any{"line": 5, "character": 6}}},
		{"textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": snippetURI}, "position": map[string]any{"line": 5, "character": 6}}},
	}
	for _, r := range requests {
		m := ed.request(r.method, r.params)
		body, _ := json.Marshal(m)
		for _, secret := range []string{".goplsmcp", "AgentSecret"} {
			if strings.Contains(string(body), secret) {
				t.Errorf("the editor's %s answer names the agent's snippet (%s): %.400s", r.method, secret, body)
				break
			}
		}
	}
	// The editor's own answers are still whole: its references to
	// Largest, and its rename of it.
	m := ed.request("textDocument/references", with(map[string]any{"context": map[string]any{"includeDeclaration": true}}))
	if list, _ := m["result"].([]any); len(list) < 2 {
		t.Errorf("the editor's references to Largest: %v", m)
	}
}

// TestShareClientRawLineIsMCP: a stdio client whose first line is the
// editor's greeting (#lsp share-unsaved) is an MCP session all the same:
// its session's first line on the daemon's socket is the session's own,
// so the client's line never reaches the daemon's editor handler (which
// would make it the editor whose unsaved text agents see).
func TestShareClientRawLineIsMCP(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	cmd := exec.Command(binary, "--root", root, "--gopls", goplsPath(t))
	cmd.Env = append([]string(nil), sh.env...)
	p := startCmd(t, cmd)
	p.send("#lsp share-unsaved")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	for {
		m := p.recv()
		if m["id"] == float64(1) {
			if m["result"] == nil {
				t.Fatalf("initialize after a raw first line: %v", m)
			}
			break
		}
	}
	data, err := os.ReadFile(filepath.Join(sh.dir, sh.list()[0].Key+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "component=editor") {
		t.Errorf("the daemon served the MCP client as an editor:\n%s", data)
	}
}
