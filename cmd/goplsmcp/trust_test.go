//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// What a session trusts of the runtime directory (docs/daemon.md, "Where
// the socket lives"): nothing another user could have put there. Another
// user is uid 12345, whose files and processes root (these tests) makes.

const otherUID = 12345

// helperForOthers copies this test binary where another user may run it,
// for the helpers of TestMain.
func helperForOthers(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "trust-helper")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "helper")
	if err := os.WriteFile(helper, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return helper
}

// plantedListener listens on sock as this process and returns what the
// connections to it sent, so far.
func plantedListener(t *testing.T, sock string) (sent func() string) {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var got strings.Builder
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.SetReadDeadline(time.Now().Add(5 * time.Second))
				line, _ := bufio.NewReader(conn).ReadString('\n')
				mu.Lock()
				got.WriteString(line)
				mu.Unlock()
			}()
		}
	}()
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return got.String()
	}
}

// ownSession starts a session with sharing on, which is expected to
// refuse to share and serve with a gopls of its own, and checks that it
// answers and says why on stderr.
func (sh *shared) ownSession(t *testing.T, args []string, why string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--log-level", "info"}, args...)...)
	cmd.Env = append([]string(nil), sh.env...)
	p := startCmd(t, cmd)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"trust","version":"0"}}}`)
	if m := p.recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if text, _, _ := p.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
		t.Errorf("go_workspace of the session that refused to share:\n%s", text)
	}
	// Fails the test if the session does not say why it did not share.
	p.stderrMatch(`not sharing a daemon.*(` + regexp.QuoteMeta(why) + `)`)
	if pid := p.goplsPID(); pid == 0 {
		t.Errorf("the session started no gopls of its own")
	}
}

func TestShareRefusesWhatOthersPlanted(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to make files and processes of another user")
	}
	sh := newShared(t)
	root := exampleRoot(t)
	args := []string{"--root", root, "--gopls", goplsPath(t)}
	// The key of the workspace, from a daemon that then stops: what an
	// attacker computes.
	p := sh.session(args...)
	key := sh.waitList("daemon", func(l []daemonInfo) bool { return len(l) == 1 })[0].Key
	p.stdin.Close()
	<-p.exited
	stop := exec.Command(binary, "daemon", "stop")
	stop.Env = sh.env
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("goplsmcp daemon stop: %v\n%s", err, out)
	}
	sock := filepath.Join(sh.dir, key+".sock")
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Fatalf("the stopped daemon left its socket: %v", err)
	}
	noDaemon := func(t *testing.T) {
		t.Helper()
		if pids := daemonsUnder(sh.dir); len(pids) > 0 {
			t.Errorf("a daemon was started beside what was planted: %v", pids)
		}
	}

	t.Run("loose directory", func(t *testing.T) {
		// Open to all for a moment: a socket planted then is served by
		// the attacker even once the directory is 0700 again.
		if err := os.Chmod(sh.dir, 0o777); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(sh.dir, 0o700); os.Remove(sock) })
		sent := plantedListener(t, sock)
		sh.ownSession(t, args, "writable by others")
		if got := sent(); got != "" {
			t.Errorf("the session sent the planted socket in a directory others could write:\n%s", got)
		}
		fi, _ := os.Stat(sh.dir)
		if fi.Mode().Perm() != 0o777 {
			t.Errorf("the loose runtime directory was made %v: repaired, its planted files kept", fi.Mode().Perm())
		}
		noDaemon(t)
	})

	t.Run("socket of another user", func(t *testing.T) {
		t.Cleanup(func() { os.Remove(sock) })
		sent := plantedListener(t, sock)
		if err := os.Lchown(sock, otherUID, otherUID); err != nil {
			t.Fatal(err)
		}
		sh.ownSession(t, args, "belongs to uid 12345")
		if got := sent(); got != "" {
			t.Errorf("the session sent another user's socket:\n%s", got)
		}
		noDaemon(t)
	})

	t.Run("listener of another user", func(t *testing.T) {
		// Listening as another user, on a socket file made to look like
		// this user's: only the peer's credentials tell.
		theirs, err := os.MkdirTemp("", "trust-other")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(theirs); os.Remove(sock) })
		os.Chown(theirs, otherUID, otherUID)
		cmd := exec.Command(helperForOthers(t))
		cmd.Env = append(os.Environ(), "GOPLSMCP_LISTEN="+filepath.Join(theirs, "s"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: otherUID, Gid: otherUID}}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		lines := bufio.NewScanner(out)
		if !lines.Scan() || lines.Text() != "LISTENING" {
			t.Fatalf("the other user's listener: %q", lines.Text())
		}
		if err := os.Rename(filepath.Join(theirs, "s"), sock); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(sock, 0, 0); err != nil {
			t.Fatal(err)
		}
		sh.ownSession(t, args, "runs as uid 12345")
		var got []string
		for lines.Scan() {
			got = append(got, lines.Text())
		}
		if diff := cmp.Diff([]string{"NOTHING"}, got); diff != "" {
			t.Errorf("what the other user's listener was sent (-want +got):\n%s", diff)
		}
		noDaemon(t)
	})

	t.Run("log linked to a file of the user", func(t *testing.T) {
		// A hard link planted where the daemon's log is written: starting
		// a daemon would truncate the user's file.
		precious := filepath.Join(t.TempDir(), "precious")
		if err := os.WriteFile(precious, []byte("keep me\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		logFile := filepath.Join(sh.dir, key+".log")
		os.Remove(logFile)
		if err := os.Link(precious, logFile); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(logFile) })
		sh.ownSession(t, args, "has 2 names")
		if data, _ := os.ReadFile(precious); string(data) != "keep me\n" {
			t.Errorf("the file linked as the daemon's log was written: %q", data)
		}
		noDaemon(t)
	})
}

func TestShareDaemonStopSparesOtherProcesses(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to make a file of another user")
	}
	sh := newShared(t)
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	pid := sleep.Process.Pid
	start, _, err := processStart(pid)
	if err != nil {
		t.Fatal(err)
	}
	write := func(key, procStart string) string {
		t.Helper()
		data, _ := json.Marshal(daemonInfo{PID: pid, ProcStart: procStart, Key: key, Root: "/nowhere", Started: time.Now()})
		f := filepath.Join(sh.dir, key+".json")
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// A daemon killed without cleaning up, whose pid sleep now has.
	stale := write("0000000000000001", "1")
	// Another user's file naming sleep exactly.
	planted := write("0000000000000002", start)
	if err := os.Chown(planted, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}

	if l := sh.list(); len(l) != 0 {
		t.Errorf("goplsmcp daemon list shows a process that is not a daemon: %+v", l)
	}
	cmd := exec.Command(binary, "daemon", "stop")
	cmd.Env = sh.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("goplsmcp daemon stop: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "no shared goplsmcp daemon to stop") {
		t.Errorf("goplsmcp daemon stop:\n%s", out)
	}
	if !processAlive(pid) {
		t.Fatalf("goplsmcp daemon stop killed sleep (pid %d), named by a stale info file", pid)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale info file naming a reused pid is still there: %v", err)
	}
	if _, err := os.Stat(planted); err != nil {
		t.Errorf("another user's file was removed: %v", err)
	}
}

func TestShareKeyTakesTheGoEnvironmentOnly(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	args := []string{"--root", root, "--gopls", goplsPath(t)}
	base := sh.env
	sessionWith := func(kv string) *proc {
		t.Helper()
		sh.env = append(append([]string(nil), base...), kv)
		defer func() { sh.env = base }()
		return sh.session(args...)
	}
	for i, p := range []*proc{
		sessionWith("GOOGLE_APPLICATION_CREDENTIALS=/tmp/a.json"),
		sessionWith("GOOGLE_APPLICATION_CREDENTIALS=/tmp/b.json"),
		sessionWith("GOFLAGS=-mod=mod"),
	} {
		if text, _, _ := p.call(1, "go_workspace", `{}`); !strings.Contains(text, "packages: 4") {
			t.Fatalf("session %d: go_workspace:\n%s", i+1, text)
		}
	}
	list := sh.waitList("two daemons with three sessions", func(l []daemonInfo) bool {
		return len(l) == 2 && l[0].Sessions+l[1].Sessions == 3
	})
	var got []int
	for _, d := range list {
		got = append(got, d.Sessions)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]int{1, 2}, got); diff != "" {
		t.Errorf("sessions per daemon: GOOGLE_* must share one, GOFLAGS have another (-want +got):\n%s", diff)
	}
}

// request sends a request and waits for its answer, adding every
// notification that comes before it to notes (as JSON).
func (p *proc) request(id int, method, params string, notes *[]string) map[string]any {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	for {
		m := p.recv()
		if m["id"] == float64(id) {
			return m
		}
		data, _ := json.Marshal(m)
		*notes = append(*notes, string(data))
	}
}

// What session A gives the daemon: unsaved text of a file in a package
// that is not on disk, and a snippet. Nothing of either may reach B.
const (
	secretOverlay = `{"file":"secretpkg/secret.go","text":"package secretpkg\n\nvar SecretThing int = \"s\"\n"}`
	secretSnippet = `{"text":"package scratch\n\nfunc SnippetSecret() { undefinedSecret() }\n"}`
)

var secrets = []string{"secretpkg", "SecretThing", "SnippetSecret", "undefinedSecret", ".goplsmcp", "scratch"}

func TestShareSessionSeesOnlyItsOwn(t *testing.T) {
	sh := newShared(t)
	root := exampleRoot(t)
	args := []string{"--root", root, "--gopls", goplsPath(t)}
	a := sh.session(args...)
	b := sh.session(args...)
	var seen []string // everything B is sent
	b.request(1, "logging/setLevel", `{"level":"debug"}`, &seen)

	if text, _, _ := a.call(1, "go_diagnostics", secretOverlay); !strings.Contains(text, "secretpkg/secret.go: 1 error") {
		t.Fatalf("A's diagnostics of its unsaved secretpkg/secret.go:\n%s", text)
	}
	if text, _, _ := a.call(2, "go_diagnostics", secretSnippet); !strings.Contains(text, "undefinedSecret") {
		t.Fatalf("A's diagnostics of its snippet:\n%s", text)
	}
	// A counts its own (the unsaved package and the snippet's): the
	// test can tell a count that includes them.
	if text, _, _ := a.call(3, "go_workspace", `{}`); !strings.Contains(text, "packages: 6\n") || !strings.Contains(text, "open buffers: 2") {
		t.Fatalf("A's go_workspace does not count its unsaved package and snippet:\n%s", text)
	}

	res := b.request(2, "resources/read", `{"uri":"goplsmcp://workspace"}`, &seen)
	var ws struct {
		Packages    int `json:"packages"`
		OpenBuffers int `json:"openBuffers"`
	}
	contents, _ := res["result"].(map[string]any)["contents"].([]any)
	if len(contents) != 1 {
		t.Fatalf("B's resources/read goplsmcp://workspace: %v", res)
	}
	if err := json.Unmarshal([]byte(contents[0].(map[string]any)["text"].(string)), &ws); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(struct{ Packages, OpenBuffers int }{4, 0}, struct{ Packages, OpenBuffers int }{ws.Packages, ws.OpenBuffers}); diff != "" {
		t.Errorf("B's goplsmcp://workspace counts A's unsaved package or buffers (-want +got):\n%s", diff)
	}
	seen = append(seen, contents[0].(map[string]any)["text"].(string))
	res = b.request(3, "tools/call", `{"name":"go_workspace","arguments":{},"_meta":{"progressToken":"w"}}`, &seen)
	text := res["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(text, "packages: 4\n") || !strings.Contains(text, "open buffers: 0") {
		t.Errorf("B's go_workspace counts A's unsaved package or buffers:\n%s", text)
	}
	seen = append(seen, text)
	res = b.request(4, "tools/call", `{"name":"go_symbol_references","arguments":{"file":"shapes/shapes.go","symbol":"Shape"},"_meta":{"progressToken":"r"}}`, &seen)
	seen = append(seen, fmt.Sprint(res))
	res = b.request(5, "completion/complete", `{"ref":{"type":"ref/prompt","name":"explain-go"},"argument":{"name":"file","value":"s"}}`, &seen)
	seen = append(seen, fmt.Sprint(res))

	// A prompt for A's unsaved file is answered as for a file that was
	// never given (B names it, so its answer is compared, not searched).
	prompt := func(id int, file string) string {
		var notes []string
		m := b.request(id, "prompts/get", `{"name":"explain-go","arguments":{"file":"`+file+`"}}`, &notes)
		seen = append(seen, notes...)
		delete(m, "id")
		data, _ := json.Marshal(m)
		return strings.ReplaceAll(string(data), file, "FILE")
	}
	if diff := cmp.Diff(prompt(6, "nothing/none.go"), prompt(7, "secretpkg/secret.go")); diff != "" {
		t.Errorf("B's prompt for A's unsaved file differs from one for no file (-none +A's):\n%s", diff)
	}

	for _, s := range seen {
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				t.Errorf("B was sent %q, of A's:\n%.600s", secret, s)
			}
		}
	}
}
