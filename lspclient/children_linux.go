package lspclient

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The watch on gopls's process group. The stall watch (stall.go) counts
// the CPU time of gopls's whole group as work, so that a request waiting
// for a slow go command is not failed; but a child that never ends — a C
// compiler expanding a cgo preamble without end, a go command blocked in
// open(2) on a FIFO or reading /dev/urandom — then holds the request, and
// every request gopls queues behind the load, forever. So each child is
// watched apart from gopls, while gopls runs, whether or not a request
// waits:
//
//   - A process of the group (gopls or a child) blocked on a file that is
//     not a regular file, seen at two looks in a row: a thread waiting in
//     open(2) for a FIFO's writer (wchan wait_for_partner), or a
//     descriptor open on a named FIFO or a device other than /dev/null
//     (a read of /dev/urandom never ends). The workspace is scanned
//     again and the file hidden from the go command (special.go); a child
//     is killed, gopls is replaced (a new gopls starts with the file
//     hidden, and the request is sent to it again).
//   - A child past its bound, in time since it started: the go command
//     itself, after the workspace load (during it, the load timeout
//     answers the calls and the load goes on), gets the load timeout, the
//     bound the user gave for the go command's work (it may download
//     modules or wait for a lock, using no CPU), or a tool's bound if
//     longer; each tool the go command (or gopls) runs — cgo, which runs
//     the C compiler, the compiler — gets childWindows stall windows, and
//     at least minToolBound (two minutes with the default window):
//     running cgo on one package's preamble takes a few seconds, on a
//     busy machine tens, and these are the processes that run without
//     end on a file that never finishes compiling. It is
//     killed with what it started (cgo with the C compiler: cgo runs the
//     compiler again and again on one preamble, going on when one run
//     fails, so killing the compiler alone does not end it).
//
// Until then, gopls holds the requests that need its loads — about any
// package, since gopls loads what is pending before it answers — so a
// call about another package may wait up to that bound, once.
//
// A kill is logged, and the requests that waited for it fail with a
// *ChildError naming the package and the cause (see watched).

// childWindows is the bound, in stall windows, of a tool the go command
// runs for gopls, and minToolBound its least (see above): a window of a
// few seconds, as tests and impatient users set, must not kill the cgo
// run of a standard package built cold on a busy machine.
const (
	childWindows = 4
	minToolBound = 30 * time.Second
)

// childLook is how often gopls's group is looked at: often enough that a
// go command reading /dev/urandom is stopped within seconds (it grows by
// about 100 MB a second), rarely enough to cost nothing (a look reads a
// few files of /proc when gopls runs nothing).
func childLook(timeout time.Duration) time.Duration {
	return min(max(timeout/8, 250*time.Millisecond), 2*time.Second)
}

// A ChildError says that a process gopls ran for a request's package was
// killed: blocked on a file that is not a regular file, or running past
// its bound.
type ChildError struct {
	Method string
	// Sentence says what was killed, about which package, and why.
	Sentence string
}

func (e *ChildError) Error() string { return e.Method + ": " + e.Sentence }

// A childKill is the record of one kill, for the requests it concerns.
type childKill struct {
	// dir is the package's directory, if known.
	dir      string
	sentence string
}

// groupProc is one process of gopls's group, from /proc/PID/stat.
type groupProc struct {
	pid, ppid int
	comm      string
	start     uint64 // start time, in clock ticks since boot
}

// clockTicks is the unit of /proc's times: USER_HZ, 100 on every Linux
// that Go runs on.
const clockTicks = 100

// watchChildren is the watch of p's group (see above); it ends with p.
func (c *Client) watchChildren(p *process) {
	if p.tree == nil {
		return
	}
	tick := time.NewTicker(childLook(c.opts.Timeout))
	defer tick.Stop()
	// Blocks seen at the last look, by "pid what": a block must be seen
	// twice, since a compiler reads a few bytes of /dev/urandom at its
	// start, and a FIFO with a writer is opened at once.
	seen := map[string]bool{}
	// Killed already, by pid and start: a process takes a while to end
	// once killed (freeing much memory, say), and is judged once.
	killed := map[groupProc]bool{}
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
		}
		seen = c.lookAtChildren(p, seen, killed)
	}
}

// lookAtChildren takes one look at p's group, and acts on what it finds.
// It returns the blocks seen.
func (c *Client) lookAtChildren(p *process, before map[string]bool, killed map[groupProc]bool) map[string]bool {
	var procs []groupProc
	if hasChildren(p.tree.pgid) || len(killed) > 0 {
		procs = groupProcs(p.tree.pgid)
	} else {
		// gopls alone, as most of the time: it is looked at without
		// reading every process's stat.
		procs = []groupProc{{pid: p.tree.pgid, comm: "gopls"}}
	}
	procs = slices.DeleteFunc(procs, func(gp groupProc) bool { return killed[gp] })
	for gp := range killed {
		if !slices.ContainsFunc(procs, func(q groupProc) bool { return q.pid == gp.pid }) {
			delete(killed, gp)
		}
	}
	now := map[string]bool{}
	uptime := uptimeTicks()
	for _, gp := range procs {
		what, file := blockedOn(gp.pid)
		if what != "" {
			key := fmt.Sprintf("%d %s", gp.pid, what)
			now[key] = true
			if before[key] {
				c.blocked(p, procs, gp, what, file, killed)
				return now
			}
			continue
		}
		if gp.pid == p.tree.pgid {
			continue
		}
		if uptime == 0 || gp.start > uptime {
			continue
		}
		bound := max(time.Duration(childWindows)*c.opts.Timeout, minToolBound)
		switch parent := procOf(procs, gp.ppid); {
		case gp.comm == "go" && !c.Loaded():
			continue // the load has its own bound, and goes on past it
		case gp.comm == "go":
			bound = max(bound, c.opts.LoadTimeout)
		case parent.pid != 0 && parent.comm != "go" && parent.pid != p.tree.pgid:
			continue // bound with the tool that started it
		}
		if age := time.Duration(uptime-gp.start) * time.Second / clockTicks; age > bound {
			dir, pkg := childPackage(c.opts.Root, procs, gp)
			what := gp.comm
			if leaves := descendants(procs, gp); len(leaves) > 0 {
				what = fmt.Sprintf("%s (running %s)", gp.comm, strings.Join(leaves, ", "))
			}
			sentence := fmt.Sprintf("gopls's go command ran %s on %s for %s, past its bound of %s, and it was killed: "+
				"a file of the package may never finish compiling (a cgo preamble whose macros expand without end, say)",
				what, pkg, age.Round(time.Second), bound)
			if gp.comm == "go" {
				sentence = fmt.Sprintf("gopls's go command (running %s) worked on %s for %s, past its bound of %s, and it was killed: "+
					"it may wait for a module download or a lock that never comes, or for a tool that never ends",
					cmp.Or(strings.Join(descendants(procs, gp), ", "), "nothing else"), pkg, age.Round(time.Second), bound)
			}
			c.killChild(procs, gp, childKill{dir: dir, sentence: sentence}, killed)
			return now
		}
	}
	return now
}

// blocked acts on a process of p's group blocked on a file (see above).
func (c *Client) blocked(p *process, procs []groupProc, gp groupProc, what, file string, killed map[groupProc]bool) {
	found := findSpecial(c.opts.Root)
	if file != "" && !slices.Contains(found, file) {
		found = append(found, file)
	}
	c.docs.mu.Lock()
	for _, path := range found {
		if isGoFile(filepath.Base(path)) {
			c.recordShieldLocked(path)
		}
	}
	c.writeOverlayLocked()
	c.docs.mu.Unlock()
	named := file
	if named == "" {
		named = strings.Join(found, ", ")
	}
	if named == "" {
		named = "a file that is no longer there"
	}
	if gp.pid == p.tree.pgid {
		c.log.Warn("gopls is blocked on a file that is not a regular file; hiding it and restarting gopls", "pid", gp.pid, "block", what, "file", named)
		p.fail(fmt.Errorf("gopls was blocked (%s) on %s, which is not a regular file; it is hidden from the new gopls", what, named))
		return
	}
	dir, pkg := childPackage(c.opts.Root, procs, gp)
	if file != "" {
		dir = filepath.Dir(file)
	}
	sentence := fmt.Sprintf("gopls's go command (%s) was blocked (%s) on %s, which is not a regular file, and it was killed; "+
		"the file is hidden from the go command from now on (%s)", gp.comm, what, named, pkg)
	c.killChild(procs, gp, childKill{dir: dir, sentence: sentence}, killed)
}

// killChild kills gp and every process it started, and records the kill
// for the requests that wait for it; killed records them.
func (c *Client) killChild(procs []groupProc, gp groupProc, k childKill, killed map[groupProc]bool) {
	victims := []groupProc{gp}
	for i := 0; i < len(victims); i++ {
		for _, q := range procs {
			if q.ppid == victims[i].pid {
				victims = append(victims, q)
			}
		}
	}
	for _, v := range victims {
		_ = syscall.Kill(v.pid, syscall.SIGKILL)
		killed[v] = true
	}
	c.log.Warn("killed a process gopls ran", "pid", gp.pid, "command", gp.comm, "processes", len(victims), "why", k.sentence)
	c.kills.Lock()
	c.kills.list = append(c.kills.list, k)
	if len(c.kills.list) > 16 {
		c.kills.list = c.kills.list[1:]
	}
	c.kills.n++
	c.kills.Unlock()
}

// procOf returns the process pid of procs, or a zero groupProc.
func procOf(procs []groupProc, pid int) groupProc {
	for _, q := range procs {
		if q.pid == pid {
			return q
		}
	}
	return groupProc{}
}

// descendants returns the distinct commands of what gp started.
func descendants(procs []groupProc, gp groupProc) []string {
	var out []string
	parents := []int{gp.pid}
	for i := 0; i < len(parents); i++ {
		for _, q := range procs {
			if q.ppid == parents[i] {
				parents = append(parents, q.pid)
				if !slices.Contains(out, q.comm) {
					out = append(out, q.comm)
				}
			}
		}
	}
	return out
}

// groupProcs returns the processes of process group pgid. It reads the
// stat of every process, a few hundred small files, once a look.
func groupProcs(pgid int) []groupProc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []groupProc
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// Counted from 3, the state (man 5 proc): 4 ppid, 5 pgrp,
		// 22 starttime.
		fields := statFields(data)
		if len(fields) < 20 {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g != pgid || fields[0] == "Z" || fields[0] == "X" {
			continue // not of the group, or ended (a zombie is not reaped yet)
		}
		gp := groupProc{}
		gp.pid, _ = strconv.Atoi(name)
		gp.ppid, _ = strconv.Atoi(fields[1])
		gp.start, _ = strconv.ParseUint(fields[19], 10, 64)
		if i, j := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')'); i >= 0 && j > i {
			gp.comm = string(data[i+1 : j])
		}
		out = append(out, gp)
	}
	return out
}

// hasChildren reports whether process pid has children, or may have
// (when its threads' lists of children cannot be read).
func hasChildren(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, task := range tasks {
		data, err := os.ReadFile(dir + task.Name() + "/children")
		if err != nil || len(bytes.TrimSpace(data)) > 0 {
			return true
		}
	}
	return false
}

// uptimeTicks returns the time since boot in clock ticks, 0 if unknown.
func uptimeTicks() uint64 {
	data, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return uint64(secs * clockTicks)
}

// blockedOn reports whether process pid is blocked on a file that is not
// a regular file: what says how ("" if not), and file names it when it
// can be told.
func blockedOn(pid int) (what, file string) {
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, _ := os.ReadDir(dir + "/task")
	for _, task := range tasks {
		wchan, err := os.ReadFile(dir + "/task/" + task.Name() + "/wchan")
		if err == nil && string(wchan) == "wait_for_partner" {
			return "waiting in open(2) for a FIFO's writer", openingPath(pid, task.Name())
		}
	}
	fds, _ := os.ReadDir(dir + "/fd")
	for _, fd := range fds {
		if fd.Name() == "0" || fd.Name() == "1" || fd.Name() == "2" {
			continue // its standard streams, which its parent chose
		}
		target, err := os.Readlink(dir + "/fd/" + fd.Name())
		if err != nil || !filepath.IsAbs(target) || target == "/dev/null" ||
			strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty") {
			continue // pipe:[…], socket:[…], anon_inode:…, the terminal
		}
		fi, err := os.Stat(dir + "/fd/" + fd.Name())
		if err != nil {
			continue
		}
		switch m := fi.Mode(); {
		case m&os.ModeNamedPipe != 0:
			return "reading a FIFO", target
		case m&os.ModeDevice != 0:
			return "reading the device " + target, ""
		}
	}
	return "", ""
}

// openingPath returns the path a thread blocked in open(2) or openat(2)
// passed, read from the process's memory (which its parent, or a process
// of the same user, may read), or "".
func openingPath(pid int, tid string) string {
	dir := "/proc/" + strconv.Itoa(pid)
	data, err := os.ReadFile(dir + "/task/" + tid + "/syscall")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	nr, _ := strconv.Atoi(f[0])
	arg := -1
	switch {
	case runtime.GOARCH == "amd64" && nr == 2: // open
		arg = 1
	case runtime.GOARCH == "amd64" && nr == 257, runtime.GOARCH == "arm64" && nr == 56: // openat
		arg = 2
	}
	if arg < 0 {
		return ""
	}
	addr, err := strconv.ParseUint(strings.TrimPrefix(f[arg], "0x"), 16, 64)
	if err != nil {
		return ""
	}
	mem, err := os.Open(dir + "/mem")
	if err != nil {
		return ""
	}
	defer mem.Close()
	buf := make([]byte, 4096)
	n, _ := mem.ReadAt(buf, int64(addr))
	path, _, ok := bytes.Cut(buf[:n], []byte{0})
	if !ok || len(path) == 0 {
		return ""
	}
	p := string(path)
	if !filepath.IsAbs(p) {
		cwd, err := os.Readlink(dir + "/cwd")
		if err != nil {
			return ""
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// childPackage names the package a child of gopls works on: the import
// path a process of its line passes (-importpath, as cgo and the
// compiler get it), or the directory, within root, where one runs. dir
// is that directory, if known.
func childPackage(root string, procs []groupProc, gp groupProc) (dir, pkg string) {
	byPID := map[int]groupProc{}
	for _, q := range procs {
		byPID[q.pid] = q
	}
	// gp, then what started it, up to gopls.
	for q, ok := gp, true; ok; q, ok = byPID[q.ppid] {
		d := "/proc/" + strconv.Itoa(q.pid)
		if cwd, err := os.Readlink(d + "/cwd"); err == nil && dir == "" && cwd != root && within(root, cwd) {
			dir = cwd
		}
		if cmdline, err := os.ReadFile(d + "/cmdline"); err == nil && pkg == "" {
			args := strings.Split(string(cmdline), "\x00")
			if i := slices.Index(args, "-importpath"); i >= 0 && i+1 < len(args) {
				pkg = args[i+1]
			}
		}
	}
	switch {
	case pkg != "":
		pkg = "package " + pkg
	case dir != "":
		pkg = "the package in " + dir
	default:
		pkg = "a package of the workspace"
	}
	return dir, pkg
}
