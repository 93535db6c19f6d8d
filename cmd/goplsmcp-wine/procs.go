package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ours are the programs of the run that must end with the session: Wine's
// own (wineserver, services.exe, ...) are stopped by stopWine.
var ours = []string{"goplsmcp.exe", "gopls.exe", "go.exe"}

// noneLeft waits, up to goneBound, until no goplsmcp.exe, gopls.exe or
// go.exe of the prefix runs, and fails naming those that still do. Each
// Windows process under Wine is a Linux process whose command line is the
// Windows one and whose environment holds WINEPREFIX.
func (p *prepared) noneLeft() error {
	var left []string
	if poll(goneBound, func() bool { left = p.wineProcesses(ours); return len(left) == 0 }) {
		return nil
	}
	return fmt.Errorf("still running %s after goplsmcp.exe exited: %s", goneBound, strings.Join(left, "; "))
}

// poll reports whether cond holds within bound, checking it on a ticker:
// what it waits for is another process's state, which sends no event.
func poll(bound time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// wineProcesses lists the live processes of the prefix ("PID command
// line"), only those running one of names when names is not nil.
func (p *prepared) wineProcesses(names []string) []string {
	entries, _ := os.ReadDir("/proc")
	var left []string
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), []byte("\x00WINEPREFIX="+p.prefix+"\x00")) {
			continue
		}
		// A zombie has ended; its parent has not yet collected it.
		if stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat")); err != nil || zombie(stat) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if names == nil || slices.Contains(names, exeName(args)) {
			left = append(left, pid+" "+strings.Join(args, " "))
		}
	}
	return left
}

// zombie reports whether /proc/PID/stat says the process is a zombie
// (its state, after the command in parentheses, is Z).
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// exeName is the lower-case file name of the Windows program a Wine
// process runs, from its command line: the program Wine was started with
// shows as its first argument ("/work/bin/windows/goplsmcp.exe --root
// ..."), one a Windows program started shows after Wine's loader
// ("/usr/lib/wine/wine64 Z:\work\bin\windows\gopls.exe serve").
func exeName(args []string) string {
	base := func(s string) string { return strings.ToLower(s[strings.LastIndexAny(s, `\/`)+1:]) }
	exe := base(args[0])
	if (exe == "wine64" || exe == "wine" || strings.HasPrefix(exe, "wine64-preloader") || strings.HasPrefix(exe, "wine-preloader")) && len(args) > 1 {
		exe = base(args[1])
	}
	return exe
}
