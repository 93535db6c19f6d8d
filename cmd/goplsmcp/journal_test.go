//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goplsmcp/goplsmcp/bridge"
)

// killFixture is a module whose package a declares Target and uses it
// in 400 more files: a rename of it writes 401 files, with one cheap
// package for gopls to load. It returns the root and its files.
func killFixture(t *testing.T) (string, map[string]string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"a/a.go": "package a\n\n// Target is what the test renames.\nfunc Target() {}\n"}
	for i := range 400 {
		files[fmt.Sprintf("a/f%03d.go", i)] = fmt.Sprintf("package a\n\nfunc f%03d() { Target() }\n", i)
	}
	if err := os.Mkdir(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, files
}

// killedState describes the files of package a against the fixture's:
// "as before", or what differs (renamed, other, missing and temporary
// files, counted).
func killedState(t *testing.T, root string, before map[string]string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "a"))
	if err != nil {
		t.Fatal(err)
	}
	var renamed, other, temps int
	seen := 0
	for _, e := range entries {
		name := "a/" + e.Name()
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		switch want, ok := before[name]; {
		case strings.Contains(name, ".goplsmcp-"):
			temps++
		case !ok:
			other++
		case string(data) == want:
			seen++
		case string(data) == strings.ReplaceAll(want, "Target", "Renamed"):
			seen++
			renamed++
		default:
			other++
		}
	}
	if renamed == 0 && other == 0 && temps == 0 && seen == len(before) {
		return "as before"
	}
	return fmt.Sprintf("%d renamed, %d as before, %d other, %d missing, %d temporary files", renamed, seen-renamed, other, len(before)-seen, temps)
}

// noJournal fails if a journal of root is left.
func noJournal(t *testing.T, root string) {
	t.Helper()
	dir, err := bridge.JournalDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.journal")); len(left) > 0 {
		t.Errorf("journals left: %v", left)
	}
}

const killRename = `{"file":"a/a.go","symbol":"Target","new_name":"Renamed","apply":true}`

// TestApplyKilled renames a symbol used in 401 files with apply: true,
// and the process writing is killed (SIGKILL, by the test-only
// GOPLSMCP_TEST_KILL_AFTER_RENAMES) after 0, 1, 200 or 400 files were
// replaced. Through the shared daemon: the client's call is answered, in
// one sentence, that it was not sent again, and the next call's new
// daemon rolls the rename back before it serves. Through goplsmcp call:
// the next start on the root rolls it back. Either way every file is as
// before and no temporary file or journal is left.
func TestApplyKilled(t *testing.T) {
	for _, n := range []int{0, 1, 200, 400} {
		t.Run(fmt.Sprintf("daemon after %d", n), func(t *testing.T) {
			root, before := killFixture(t)
			sh := newShared(t)
			sh.env = append(sh.env, fmt.Sprintf("GOPLSMCP_TEST_KILL_AFTER_RENAMES=%d", n))
			p := sh.session("--root", root, "--gopls", goplsPath(t), "--allow-write")
			text, structured, isErr := p.call(1, "go_rename_symbol", killRename)
			if want := bridge.Unrepeatable("go_rename_symbol", json.RawMessage(killRename)); !isErr || text != want || structured != nil {
				t.Errorf("the apply whose daemon was killed: isError %v, structured %v, text:\n%s\nwant:\n%s", isErr, structured, text, want)
			}
			if got, want := killedState(t, root, before), fmt.Sprintf("%d renamed, %d as before, 0 other, 0 missing, %d temporary files", n, 401-n, 401-n); got != want {
				t.Errorf("the 401 files after the kill: %s; want %s", got, want)
			}
			// Any message starts the new daemon, which has rolled the
			// apply back once it serves.
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if m := p.recv(); m["result"] == nil {
				t.Fatalf("tools/list from the new daemon: %v", m)
			}
			if got := killedState(t, root, before); got != "as before" {
				t.Errorf("the 401 files after the new daemon started: %s; want as before", got)
			}
			noJournal(t, root)
			if n := stderrCount(p, "not sending again a call that must not run twice"); n != 1 {
				t.Errorf("the session kept back the apply %d times, want 1", n)
			}
		})
	}
	t.Run("call through the daemon after 1", func(t *testing.T) {
		// goplsmcp call uses the session's daemon, which dies during the
		// apply: the call is not run again by goplsmcp call itself.
		root, before := killFixture(t)
		sh := newShared(t)
		sh.env = append(sh.env, "GOPLSMCP_TEST_KILL_AFTER_RENAMES=1")
		args := []string{"--root", root, "--gopls", goplsPath(t), "--allow-write"}
		p := sh.session(args...)
		cmd := exec.Command(binary, append(append([]string{"call"}, args...), "go_rename_symbol", killRename)...)
		cmd.Env = sh.env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		want := bridge.Unrepeatable("go_rename_symbol", json.RawMessage(killRename))
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || stdout.Len() > 0 || !strings.Contains(stderr.String(), want) {
			t.Errorf("goplsmcp call whose daemon was killed: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
		}
		p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if m := p.recv(); m["result"] == nil {
			t.Fatalf("tools/list from the new daemon: %v", m)
		}
		if got := killedState(t, root, before); got != "as before" {
			t.Errorf("the 401 files after the new daemon started: %s; want as before", got)
		}
		noJournal(t, root)
	})
	t.Run("call after 200", func(t *testing.T) {
		root, before := killFixture(t)
		cmd := []string{"call", "--root", root, "--gopls", goplsPath(t), "--allow-write", "go_rename_symbol", killRename}
		t.Setenv("GOPLSMCP_TEST_KILL_AFTER_RENAMES", "200")
		if stdout, stderr, code := runOnce(t, "", cmd...); code != -1 {
			t.Fatalf("goplsmcp call was not killed: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		os.Unsetenv("GOPLSMCP_TEST_KILL_AFTER_RENAMES")
		if got := killedState(t, root, before); got != "200 renamed, 201 as before, 0 other, 0 missing, 201 temporary files" {
			t.Errorf("the 401 files after the kill: %s", got)
		}
		// A private session rolls it back before it answers initialize.
		p := startBinary(t, "--root", root, "--gopls", goplsPath(t))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`)
		if m := p.recv(); m["result"] == nil {
			t.Fatalf("initialize: %v", m)
		}
		if got := killedState(t, root, before); got != "as before" {
			t.Errorf("the 401 files after the next start: %s; want as before", got)
		}
		noJournal(t, root)
	})
}
