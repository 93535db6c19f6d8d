//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInitReapsOrphans runs goplsmcp as PID 1 of a new PID namespace, as a
// container runs its command, with a go command that leaves an orphan
// behind at each run: the orphans, handed to PID 1, are reaped, and
// goplsmcp still serves and exits cleanly at the end of stdin.
func TestInitReapsOrphans(t *testing.T) {
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	if err := exec.Command("unshare", "--pid", "--fork", "true").Run(); err != nil {
		t.Skipf("cannot make a PID namespace here: %v", err)
	}
	bin := t.TempDir()
	runs := filepath.Join(bin, "runs")
	// A subshell starts sleep and exits at once: sleep's parent is gone,
	// and PID 1 inherits it.
	script := fmt.Sprintf("#!/bin/sh\necho x >> %q\n( sleep 0.1 & )\nexec %q \"$@\"\n", runs, realGo)
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--pid", "--fork", binary, "--root", exampleRoot(t), "--gopls", goplsPath(t))
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	p := startCmd(t, cmd)
	serving(t, p)
	if b, _ := os.ReadFile(runs); len(b) == 0 {
		t.Fatal("gopls ran no go command")
	}
	var init int
	for _, pid := range descendants(cmd.Process.Pid) {
		if status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); strings.Contains(string(status), "\nNSpid:\t") {
			for _, line := range strings.Split(string(status), "\n") {
				if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" && f[len(f)-1] == "1" {
					init = pid
				}
			}
		}
	}
	if init == 0 {
		t.Fatal("found no PID 1 in the namespace")
	}
	// Every orphan ends within 0.1 s; reaped, it is gone from the table.
	var zombies []string
	if !poll(10*time.Second, 20*time.Millisecond, func() bool {
		zombies = nil
		for _, pid := range descendants(init) {
			if s, _ := statField(pid, 0); s == "Z" {
				comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
				zombies = append(zombies, fmt.Sprintf("%d %s", pid, strings.TrimSpace(string(comm))))
			}
		}
		return len(zombies) == 0
	}) {
		t.Fatalf("zombies left unreaped under PID 1: %s", strings.Join(zombies, "; "))
	}
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(drainBound + shutdownBound):
		t.Fatal("goplsmcp as PID 1 still running after the end of stdin")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("goplsmcp as PID 1 exited with %d, want 0", code)
	}
}
