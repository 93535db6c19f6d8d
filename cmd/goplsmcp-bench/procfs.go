package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The memory and CPU figures come from /proc, so they exist on Linux only;
// elsewhere the harness reports them as unavailable.

// userHZ is the unit of the CPU times in /proc/PID/stat. The kernel fixes
// it at 100 for user space on every architecture Go runs on.
const userHZ = 100

// cpuTicks returns the user plus system CPU time of one process, in ticks.
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may contain spaces; the
	// fields after it are space separated. utime and stime are fields 14
	// and 15 of the line, 12 and 13 after the name.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return ut + st, nil
}

// lifeTicks returns the CPU time, in ticks, of one process and of the
// children it has waited for (cutime and cstime, fields 16 and 17): a
// gopls's own CPU and that of the go commands it ran; for a process that
// starts goplses, that of every gopls it has stopped.
func lifeTicks(pid int) (self, reaped int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	var t [4]int64
	for i := range t {
		if t[i], err = strconv.ParseInt(f[11+i], 10, 64); err != nil {
			return 0, 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
		}
	}
	return t[0] + t[1], t[2] + t[3], nil
}

// tree returns pid and all its descendants. The kernel's per-task
// children lists are not always built in, so it reads every process's
// parent from /proc/*/stat.
func tree(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	kids := make(map[int][]int)
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(data)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 2 {
			continue
		}
		self, err1 := strconv.Atoi(strings.Fields(s)[0])
		parent, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			kids[parent] = append(kids[parent], self)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// treeTicks sums the CPU ticks of the given processes and their
// descendants. Processes that have gone are skipped.
func treeTicks(pids []int) int64 {
	var sum int64
	for _, p := range pids {
		for _, q := range tree(p) {
			if t, err := cpuTicks(q); err == nil {
				sum += t
			}
		}
	}
	return sum
}

// memory returns a process's resident set size and its peak, in KiB.
func memory(pid int) (rssKiB, peakKiB int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rssKiB = n
		case "VmHWM":
			peakKiB = n
		}
	}
	if rssKiB == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return rssKiB, peakKiB, nil
}

// settle waits until the given processes and their descendants have used
// almost no CPU for a second — gopls has finished loading and diagnosing
// after a start or an edit — or until max has passed. It reports how long
// it waited and whether the processes became quiet.
func settle(ctx context.Context, pids []int, max time.Duration) (time.Duration, bool) {
	const (
		interval = 250 * time.Millisecond
		// quietTicks is the CPU allowed per interval: 20 ms, 8 % of a core.
		quietTicks = 2
		quietRuns  = 4 // one second
	)
	start := time.Now()
	if _, err := cpuTicks(os.Getpid()); err != nil {
		return 0, false // no /proc
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	last := treeTicks(pids)
	quiet := 0
	for quiet < quietRuns {
		select {
		case <-ctx.Done():
			return time.Since(start), false
		case <-deadline.C:
			return time.Since(start), false
		case <-tick.C:
		}
		now := treeTicks(pids)
		if now-last <= quietTicks {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return time.Since(start), true
}

// readTrim returns the trimmed content of a small file, or "".
func readTrim(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// cpuNanos returns the CPU time used so far by all threads of a process,
// in nanoseconds, from /proc/PID/task/*/schedstat: precise enough to
// charge a single call. Threads that have ended are not counted, so it is
// used over short windows in which the Go runtime keeps its threads.
func cpuNanos(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for process %d", pid)
	}
	var sum int64
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			sum += n
		}
	}
	return sum, nil
}
