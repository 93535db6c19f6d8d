package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stopTestDaemons stops the daemons of every runtime directory under
// root, and kills and names any that survive that.
func stopTestDaemons(root string) string {
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			cmd := exec.Command(binary, "daemon", "stop")
			cmd.Env = append(os.Environ(), envRuntimeDir+"="+path)
			cmd.Run()
		}
		return nil
	})
	var left []string
	for _, pid := range daemonsUnder(root) {
		left = append(left, strconv.Itoa(pid))
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	return strings.Join(left, " ")
}

// daemonsUnder lists the live processes of goplsmcp daemon serve with a
// runtime directory under root.
func daemonsUnder(root string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		for i := 0; i+3 < len(args); i++ {
			if args[i] == "daemon" && args[i+1] == "serve" && args[i+2] == "--runtime-dir" && strings.HasPrefix(args[i+3], root) && processAlive(pid) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// dialHelper is the client of TestShareOtherUserRefused, run as a process
// of its own (see TestMain): it connects to the socket in GOPLSMCP_DIAL,
// initializes and prints what it got.
func dialHelper(sock string) {
	conn, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("DIAL:", err)
		return
	}
	defer conn.Close()
	fmt.Fprintln(conn, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	if n, err := conn.Read(buf); n > 0 {
		fmt.Println("ANSWER:", string(buf[:n]))
	} else {
		fmt.Println("NO ANSWER:", err)
	}
}

// listenHelper is the planted listener of TestShareRefusesWhatOthersPlanted,
// run as a process of its own (see TestMain), as another user: it
// listens on the socket in GOPLSMCP_LISTEN, says so, and prints what the
// first connection sends it.
func listenHelper(sock string) {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Println("LISTEN:", err)
		return
	}
	fmt.Println("LISTENING")
	conn, err := ln.Accept()
	if err != nil {
		fmt.Println("ACCEPT:", err)
		return
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 4096)
	if n, _ := conn.Read(buf); n > 0 {
		fmt.Printf("GOT: %s\n", buf[:n])
	} else {
		fmt.Println("NOTHING")
	}
}

// TestEveryFlagReachesTheDaemon holds each flag to a side: given to a
// shared daemon by daemonArgs, or the session process's own. A new flag
// fails here until daemonArgs passes it on (and lists it in daemonFlags),
// or it is listed in sessionFlags.
func TestEveryFlagReachesTheDaemon(t *testing.T) {
	cfg := &config{}
	fs := newFlagSet(cfg)
	addHiddenFlags(fs, cfg)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(daemonFlags, f.Name) && !slices.Contains(helloFlags, f.Name) && !slices.Contains(sessionFlags, f.Name) {
			t.Errorf("--%s is neither passed to a shared daemon (daemonFlags, daemonArgs), nor to it with each session (helloFlags, sessionHello), nor the session's own (sessionFlags)", f.Name)
		}
	})
	// And daemonArgs spells every daemon flag that is set.
	set := []string{"--root", "/r", "--gopls", "/g", "--timeout", "7s", "--max-message-bytes", "4096", "--max-result-bytes", "4096",
		"--max-text-chars", "9", "--idle", "1m", "--load-timeout", "2m", "--watch", "poll", "--gopls-arg", "-x", "--remote", "auto", "--allow-network", "--allow-write",
		"--tools", "go_workspace", "--build-flags", "-tags=a", "--env", "K=V", "--settings", `{"staticcheck":true}`}
	if err := fs.Parse(set); err != nil {
		t.Fatal(err)
	}
	got := daemonArgs(cfg, "/r", "/g")
	for _, name := range daemonFlags {
		if !slices.Contains(got, "--"+name) {
			t.Errorf("daemonArgs leaves out --%s: %q", name, got)
		}
	}
	// A session's own flags split no daemon: they are in its first line,
	// not in the daemon's arguments (and so not in its key).
	hello := sessionHello(cfg)
	for _, name := range helloFlags {
		if slices.Contains(got, "--"+name) {
			t.Errorf("daemonArgs has --%s, a session's own flag: %q", name, got)
		}
	}
	if want := `#mcp {"allowWrite":true,"tools":["go_workspace"]}` + "\n"; hello != want {
		t.Errorf("sessionHello = %q, want %q", hello, want)
	}
}

// TestAnswerEnvCoversGoHelp holds answerEnvVars to the variables the
// installed go command says it reads: every one `go help environment`
// lists before its part on what is not read from the environment, but
// for GOCOVERDIR (where a -cover binary writes, no answer of gopls's).
func TestAnswerEnvCoversGoHelp(t *testing.T) {
	out, err := exec.Command("go", "help", "environment").Output()
	if err != nil {
		t.Fatalf("go help environment: %v", err)
	}
	text, _, ok := strings.Cut(string(out), "not read from the environment")
	if !ok {
		t.Fatalf("go help environment has no part on what is not read from the environment:\n%s", out)
	}
	names := regexp.MustCompile(`(?m)^\t([A-Z][A-Z0-9_]*(?:, [A-Z][A-Z0-9_]*)*)$`)
	var read []string
	for _, m := range names.FindAllStringSubmatch(text, -1) {
		read = append(read, strings.Split(m[1], ", ")...)
	}
	if len(read) < 50 {
		t.Fatalf("only %d variables found in go help environment: %q", len(read), read)
	}
	for _, name := range read {
		if name != "GOCOVERDIR" && !slices.Contains(answerEnvVars, name) {
			t.Errorf("the go command reads %s (go help environment), but it is not in answerEnvVars: sessions that differ in it would share a daemon", name)
		}
	}
}
