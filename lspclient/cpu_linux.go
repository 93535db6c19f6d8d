package lspclient

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// cpuTicks returns the work done so far by gopls's process group — gopls
// and the go commands it runs, which stay in its group — plus what its
// reaped children did: CPU time in clock ticks, plus major page faults
// (each a wait for the disk, which a process paging in its binary or the
// module cache does instead of using CPU). Only its changes mean
// anything. It reads /proc, a few hundred small files at most, so it is
// asked rarely (a few times per stall window of a request that waits).
func (t *procTree) cpuTicks() (uint64, bool) {
	if t == nil {
		return 0, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var total uint64
	found := false
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		pid, _ := strconv.Atoi(name)
		// Counted from 3, the state (man 5 proc): 5 pgrp, 12 majflt,
		// 13 cmajflt, 14 utime, 15 stime, 16 cutime, 17 cstime.
		fields := statFields(data)
		if len(fields) < 15 {
			continue
		}
		if pgrp, _ := strconv.Atoi(fields[2]); pgrp != t.pgid {
			continue
		}
		own := []int{9, 11, 12} // majflt, utime, stime
		if pid == t.pgid {
			// And what its reaped children did.
			own = append(own, 10, 13, 14)
		}
		for _, i := range own {
			v, _ := strconv.ParseUint(fields[i], 10, 64)
			total += v
		}
		found = found || pid == t.pgid
	}
	return total, found
}

// statFields splits a /proc/PID/stat line after the command name, which
// is in parentheses and may hold spaces: the first field returned is the
// state (field 3 of man 5 proc).
func statFields(data []byte) []string {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}
