//go:build unix && !linux

package main

import (
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// processAlive reports whether pid is a live process.
func processAlive(pid int) bool {
	if unix.Kill(pid, 0) != nil {
		return false
	}
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && !strings.HasPrefix(strings.TrimSpace(string(out)), "Z")
}

// processRSS is the resident memory of pid in bytes, 0 if unknown.
func processRSS(pid int) int64 {
	out, err := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0
	}
	kb, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return kb << 10
}
