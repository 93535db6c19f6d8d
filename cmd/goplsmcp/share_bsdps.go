//go:build unix && !linux && !darwin

package main

import (
	"os/exec"
	"strconv"
	"strings"
)

// processStart names the live process pid by its start time (ps's
// lstart, to the second), which a process that reuses the pid does not
// share, and returns the uid it runs as. errNoProcess: no such process,
// or a zombie.
func processStart(pid int) (start string, uid int, err error) {
	if !processAlive(pid) {
		return "", 0, errNoProcess
	}
	out, err := exec.Command("ps", "-o", "uid=,lstart=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return "", 0, errNoProcess
	}
	uidText, start, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	uid, err = strconv.Atoi(uidText)
	if err != nil {
		return "", 0, err
	}
	return strings.TrimSpace(start), uid, nil
}
