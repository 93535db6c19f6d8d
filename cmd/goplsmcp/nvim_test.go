//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNeovim drives goplsmcp lsp with Neovim's own LSP client (headless,
// testdata/nvim_lsp.lua), while an agent's session looks at the file
// Neovim holds unsaved: with --share-unsaved it sees the unsaved change,
// without it the disk. Then the daemon is killed, and Neovim's buffer
// must be whole in the new one. It needs nvim (the Debian package
// neovim); without it, it is skipped.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed (apt-get install neovim): the Neovim test of goplsmcp lsp is skipped")
	}
	script, err := filepath.Abs("testdata/nvim_lsp.lua")
	if err != nil {
		t.Fatal(err)
	}
	for _, share := range []bool{false, true} {
		name := "without consent"
		if share {
			name = "with --share-unsaved"
		}
		t.Run(name, func(t *testing.T) {
			sh := newShared(t)
			root := exampleRoot(t)
			dir := t.TempDir()
			out, goFile := filepath.Join(dir, "out"), filepath.Join(dir, "go")
			cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
			cmd.Env = append(append([]string(nil), sh.env...), "ROOT="+root, "OUT="+out, "GO="+goFile,
				"GOPLSMCP="+binary, "GOPLS="+goplsPath(t), "SHARE="+map[bool]string{true: "1", false: "0"}[share],
				"GORACE=atexit_sleep_ms=0", "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// goplsmcp lsp, Neovim's child, may hold its stderr a moment
			// longer.
			cmd.WaitDelay = 5 * time.Second
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			var exitErr error
			go func() {
				exitErr = cmd.Wait()
				close(exited)
			}()
			t.Cleanup(func() {
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					<-exited
				}
			})
			transcript := func() string { data, _ := os.ReadFile(out); return string(data) }
			waitLine := func(line string) {
				t.Helper()
				deadline := time.Now().Add(120 * time.Second)
				for !strings.Contains(transcript(), line+"\n") {
					if strings.Contains(transcript(), "FAIL ") || time.Now().After(deadline) {
						t.Fatalf("Neovim did not reach %s:\n%s\nstderr:\n%s", line, transcript(), stderr.String())
					}
					select {
					case <-exited:
						if !strings.Contains(transcript(), line+"\n") {
							t.Fatalf("Neovim exited (%v) before %s:\n%s\nstderr:\n%s", exitErr, line, transcript(), stderr.String())
						}
					case <-time.After(50 * time.Millisecond): // polling the transcript Neovim writes
					}
				}
			}
			waitLine("STEP1")
			got := transcript()
			t.Logf("Neovim (consent %v), its steps so far:\n%s", share, got)
			if !strings.Contains(got, "HOVER ```go var X int") {
				t.Errorf("Neovim's hover on its unsaved X:\n%s", got)
			}
			if !strings.Contains(got, "DEF file://"+filepath.Join(root, "report", "report.go")+":") {
				t.Errorf("Neovim's definition of report.Summary:\n%s", got)
			}

			// An agent's session on the same daemon.
			agent := sh.session("--root", root, "--gopls", goplsPath(t))
			text, _, _ := agent.call(1, "go_diagnostics", `{"file":"report/report.go"}`)
			sees := strings.Contains(text, unsavedError)
			if sees != share {
				t.Errorf("the agent sees Neovim's unsaved change: %v, want %v (consent %v):\n%s", sees, share, share, text)
			}
			t.Logf("the agent's go_diagnostics of report/report.go (consent %v):\n%s", share, text)

			// kill -9 of the daemon, while Neovim holds its unsaved buffer.
			list := sh.waitList("daemon serving Neovim and the agent", func(l []daemonInfo) bool { return len(l) == 1 && l[0].Sessions == 2 })
			if err := syscall.Kill(list[0].PID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if !waitDead(20*time.Second, list[0].PID, list[0].GoplsPID) {
				t.Fatalf("the killed daemon %d still runs after 20s", list[0].PID)
			}
			t.Logf("killed the daemon (pid %d) and its gopls (pid %d) with SIGKILL while Neovim holds its unsaved buffer", list[0].PID, list[0].GoplsPID)
			if err := os.WriteFile(goFile, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			waitLine("DONE")
			if got := transcript(); !strings.Contains(got, "HOVER2 ```go var X int") {
				t.Errorf("Neovim's hover on its unsaved X after the daemon was killed:\n%s", got)
			}
			t.Logf("Neovim's whole transcript (consent %v):\n%s", share, transcript())
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				t.Errorf("Neovim did not exit within 20s of its script's end")
			}
		})
	}
}
