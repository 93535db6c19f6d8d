package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processAlive reports whether pid is a live process (a zombie is not).
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return false
	}
	return data[i+2] != 'Z' && data[i+2] != 'X'
}

// processRSS is the resident memory of pid in bytes, 0 if unknown.
func processRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// processStart names the live process pid by its start (clock ticks since
// boot, from /proc/PID/stat), which a process that reuses the pid does not
// share, and returns the uid it runs as. errNoProcess: no such process,
// or a zombie.
func processStart(pid int) (start string, uid int, err error) {
	dir := fmt.Sprintf("/proc/%d", pid)
	data, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return "", 0, errNoProcess
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return "", 0, fmt.Errorf("reading %s/stat: no command name", dir)
	}
	// After "pid (comm) ": state is field 3, starttime field 22.
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return "", 0, fmt.Errorf("reading %s/stat: %d fields", dir, len(f))
	}
	if f[0] == "Z" || f[0] == "X" {
		return "", 0, errNoProcess
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", 0, errNoProcess
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", 0, fmt.Errorf("reading the owner of %s", dir)
	}
	return f[19], int(st.Uid), nil
}
