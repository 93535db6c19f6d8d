//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNoProcessLeft ends goplsmcp while gopls's go list runs (a wrapper in
// PATH holds it), by kill -9, by SIGTERM and by the end of stdin with a
// call waiting for the load, and expects every process of its tree —
// gopls, the go command and what it started — to end within a deadline.
func TestNoProcessLeft(t *testing.T) {
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, how := range []string{"kill -9", "SIGTERM", "stdin EOF"} {
		t.Run(how, func(t *testing.T) {
			bin := t.TempDir()
			started := filepath.Join(bin, "started")
			// go list announces itself, then takes a minute.
			script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = list ]; then echo $$ >> %q; sleep 60; fi\nexec %q \"$@\"\n", started, realGo)
			if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary, "--root", exampleRoot(t), "--gopls", goplsPath(t))
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			p := startCmd(t, cmd)
			server := cmd.Process.Pid
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
			p.recv()
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			// A call that waits for the load, which go list holds up.
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"go_diagnostics","arguments":{}}}`)
			if !poll(30*time.Second, 10*time.Millisecond, func() bool { b, _ := os.ReadFile(started); return len(b) > 0 }) {
				t.Fatal("gopls ran no go list within 30s")
			}
			tree := descendants(server)
			if len(tree) < 3 {
				t.Fatalf("goplsmcp's tree is %v; want gopls, the go command and its sleep at least", tree)
			}
			switch how {
			case "kill -9":
				_ = cmd.Process.Kill()
			case "SIGTERM":
				_ = cmd.Process.Signal(syscall.SIGTERM)
			case "stdin EOF":
				p.stdin.Close()
			}
			start := time.Now()
			// The drain (5 s at most) and gopls's stop (under 2 s).
			tree = append(tree, server)
			var left []string
			if !poll(drainBound+shutdownBound+time.Second, 20*time.Millisecond, func() bool {
				left = nil
				for _, pid := range tree {
					if s := procState(pid); s != "" {
						left = append(left, s)
					}
				}
				return len(left) == 0
			}) {
				t.Fatalf("%s after %v: processes left: %s", time.Since(start).Round(time.Millisecond), how, strings.Join(left, "; "))
			}
			t.Logf("after %s, goplsmcp's %d processes gone in %s", how, len(tree), time.Since(start).Round(time.Millisecond))
		})
	}
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := statField(n, 1); ok {
			parent[n], _ = strconv.Atoi(ppid)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

// statField returns field i (0: state, 1: parent) after the command in
// /proc/pid/stat.
func statField(pid, i int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	j := bytes.LastIndexByte(b, ')')
	if j < 0 {
		return "", false
	}
	f := strings.Fields(string(b[j+1:]))
	if len(f) <= i {
		return "", false
	}
	return f[i], true
}

// procState describes pid if it still runs: not gone, and not a zombie
// (which has ended and waits only for its parent to reap it).
func procState(pid int) string {
	s, ok := statField(pid, 0)
	if !ok || s == "Z" {
		return ""
	}
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return fmt.Sprintf("%d %s (%s)", pid, strings.ReplaceAll(strings.TrimSpace(string(cmd)), "\x00", " "), s)
}
