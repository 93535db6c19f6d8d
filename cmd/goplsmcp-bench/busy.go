package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// busyRetries is how many times a run asks a question again after a tool
// error, as a user would, before the run counts as failed.
const busyRetries = 3

// A busyRepo is a workspace of the busy-machine measurement (table 11)
// and the symbol whose references are its first question.
type busyRepo struct {
	dir  string
	refs symbolAt
}

// parseBusyRefs reads a -busy-refs value: FILE:SYMBOL, FILE relative to
// the repository, with slashes.
func parseBusyRefs(v string) (symbolAt, error) {
	i := strings.LastIndexByte(v, ':')
	if i <= 0 || i == len(v)-1 {
		return symbolAt{}, fmt.Errorf("-busy-refs %q: want FILE:SYMBOL, FILE relative to the repository", v)
	}
	return symbolAt{file: v[:i], symbol: v[i+1:]}, nil
}

// A busyAsk is one question of a busy run and how it went.
type busyAsk struct {
	// dur is from the first asking to the answer, retries included;
	// for the first question, from starting the process.
	dur time.Duration
	// errors are the tool errors' texts, one per retry; timeouts those
	// that say gopls did not answer in time or stopped working.
	errors   []string
	timeouts int
	// failed is why the question got no answer, or "".
	failed  string
	count   int
	counted bool
}

// A busyRun is one cold start of one server on a loaded machine.
type busyRun struct {
	ours           bool
	refs, diag     busyAsk
	loadBefore     string
	loadAfter      string
	hogDied        bool
	leftoverKilled int
}

// timeoutText matches the tool errors that mean a request was given up
// on for want of an answer: goplsmcp's ("gopls did not answer in time",
// "gopls stopped working on ...") and gopls mcp's context deadline, which
// it has none of by default.
func isTimeoutText(s string) bool {
	s = strings.ToLower(s)
	for _, t := range []string{"did not answer in time", "stopped working", "deadline exceeded", "timed out", "timeout"} {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// busy times, on each -busy-repo, the first answers of goplsmcp and gopls
// mcp from a cold start (a new, empty gopls cache each time) while a CPU
// hog of twice the core count runs: the references of a symbol, then the
// workspace's diagnostics. A tool error is answered by asking again, as
// a user would, up to busyRetries times. Starts alternate.
func (b *bench) busy(ctx context.Context) error {
	if len(b.cfg.busyRepos) == 0 {
		b.rep.skipped = append(b.rep.skipped, "11. a busy machine (give -busy-repo DIR -busy-refs FILE:SYMBOL)")
		return nil
	}
	threads := b.cfg.busyHog
	if threads == 0 {
		threads = 2 * runtime.NumCPU()
	}
	t := b.table(11, "First answer on a busy machine",
		fmt.Sprintf("From starting the server process, with a new, empty gopls cache, on a real repository while a CPU hog (%d busy threads, %.3g× the %d CPUs, in a process of its own) runs, to the first answer listing the references of the symbol; then, in the same session, the workspace's diagnostics (go_diagnostics with no files), timed from asking to the answer. A tool error is answered by asking again, as a user would, up to %d times; a run whose question still fails, or that passes %s, has failed. Starts alternate between the two servers; goplsmcp runs with its defaults. Target: no goplsmcp call that did not answer in time, no failed run, and the references' first answer within 10 %% of gopls mcp.", threads, float64(threads)/float64(runtime.NumCPU()), runtime.NumCPU(), busyRetries, b.cfg.busyRunMax),
		"workspace", "question", "runs", "goplsmcp p50", "gopls mcp p50", "ratio", "goplsmcp min–max", "gopls mcp min–max", "tool errors (timeouts), goplsmcp / gopls mcp", "retries", "failed runs", "answer", "met")
	for _, r := range b.cfg.busyRepos {
		if err := b.busyRepo(ctx, t, r, threads); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) busyRepo(ctx context.Context, t *table, r busyRepo, threads int) error {
	name := filepath.Base(r.dir)
	ws := &workspace{name: name, root: r.dir, refs: r.refs}
	if _, err := os.Stat(ws.refs.abs(ws)); err != nil {
		return fmt.Errorf("-busy-refs: %w", err)
	}
	// The go command's build cache (cgo's output, export data) is
	// shared by every run: warm it first, unmeasured, so that the first
	// run does not pay for it alone.
	b.logf("busy machine on %s: warming the go command's build cache", name)
	warm := exec.CommandContext(ctx, "go", "list", "-e", "-compiled", "-deps", "-test", "-json=ImportPath", "./...")
	warm.Dir, warm.Env = r.dir, b.env
	if err := warm.Run(); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	n := b.cfg.busyN
	h, err := startHog(threads, time.Duration(2*n+1)*b.cfg.busyRunMax)
	if err != nil {
		return err
	}
	defer h.stop()
	b.logf("busy machine on %s: %d runs each, CPU hog of %d threads (pid %d)", name, n, threads, h.cmd.Process.Pid)
	hogStart, hogTicks0 := time.Now(), ticksOr0(h.cmd.Process.Pid)
	defer func() {
		// What the hog got is the load it put on the servers.
		if ticks := ticksOr0(h.cmd.Process.Pid) - hogTicks0; ticks > 0 {
			wall := time.Since(hogStart)
			t.note("%s: the CPU hog used %.0f CPU-seconds over the %.0f s of the runs (%.2f of the %d CPUs)", name, float64(ticks)/userHZ, wall.Seconds(), float64(ticks)/userHZ/wall.Seconds(), runtime.NumCPU())
		}
	}()
	var runs []busyRun
	for i := range n {
		for k := range 2 {
			ours := (i+k)%2 == 0
			side := "gopls-mcp"
			if ours {
				side = "goplsmcp"
			}
			cache := filepath.Join(b.tmp, "busy-cache", fmt.Sprintf("%s-%s-%d", name, side, i))
			if err := os.MkdirAll(cache, 0o755); err != nil {
				return err
			}
			run := b.busyOnce(ctx, ws, ours, append(b.envFor(side), "GOPLSCACHE="+cache))
			os.RemoveAll(cache)
			run.hogDied = !h.running()
			if err := ctx.Err(); err != nil {
				return err
			}
			b.logf("  %s run %d: %s; load %s → %s", side, i+1, run.summary(), run.loadBefore, run.loadAfter)
			t.note("%s, %s run %d: %s; load average %s → %s", name, side, i+1, run.summary(), run.loadBefore, run.loadAfter)
			runs = append(runs, run)
			if run.hogDied {
				return fmt.Errorf("the CPU hog exited during the runs on %s", name)
			}
		}
	}
	b.busyRows(t, name, r.refs.symbol, runs)
	return nil
}

// busyRows adds the table's two rows for one repository and judges them.
func (b *bench) busyRows(t *table, name, symbol string, runs []busyRun) {
	for _, q := range []struct {
		label string
		ask   func(r *busyRun) *busyAsk
		unit  string
		judge bool
	}{
		{"references of " + symbol + " (first answer)", func(r *busyRun) *busyAsk { return &r.refs }, "references", true},
		{"workspace diagnostics (after it)", func(r *busyRun) *busyAsk { return &r.diag }, "diagnostics", false},
	} {
		var ours, peer samples
		var errs, tos, retries, failed [2]int
		counts := [2]string{"—", "—"}
		n := 0
		for i := range runs {
			r := &runs[i]
			a := q.ask(r)
			s := 1
			if r.ours {
				s = 0
				n++
			}
			errs[s] += len(a.errors)
			tos[s] += a.timeouts
			retries[s] += min(len(a.errors), busyRetries)
			if a.failed != "" {
				failed[s]++
				continue
			}
			if r.ours {
				ours = append(ours, a.dur)
			} else {
				peer = append(peer, a.dur)
			}
			if a.counted {
				counts[s] = fmt.Sprint(a.count)
			}
		}
		span := func(s samples) string {
			if len(s) == 0 {
				return "—"
			}
			return secs(s.pct(0)) + " – " + secs(s.pct(100))
		}
		p50 := func(s samples) string {
			if len(s) == 0 {
				return "—"
			}
			return secs(s.p50())
		}
		rat := "—"
		r := 0.0
		if len(ours) > 0 && len(peer) > 0 {
			rat = ratio(float64(ours.p50()), float64(peer.p50()))
			r = float64(ours.p50()) / float64(peer.p50())
		}
		ok := tos[0] == 0 && failed[0] == 0 && len(ours) > 0
		if q.judge {
			ok = ok && r > 0 && r <= 1.10
		}
		t.add(name, q.label, fmt.Sprint(n), p50(ours), p50(peer), rat, span(ours), span(peer),
			fmt.Sprintf("%d (%d) / %d (%d)", errs[0], tos[0], errs[1], tos[1]),
			fmt.Sprintf("%d / %d", retries[0], retries[1]),
			fmt.Sprintf("%d / %d", failed[0], failed[1]),
			fmt.Sprintf("%s vs %s %s", counts[0], counts[1], q.unit), check(ok))
		target := "11. " + q.label + " on " + name + " on a busy machine: no goplsmcp timeout, no failed run"
		if q.judge {
			target += ", within 10 % of gopls mcp"
		}
		b.rep.judge(target, fmt.Sprintf("%s (%s vs %s); %d timeouts, %d failed runs; gopls mcp %d timeouts, %d failed runs", rat, p50(ours), p50(peer), tos[0], failed[0], tos[1], failed[1]), ok)
	}
}

// busyOnce starts one server on ws with env, asks its two questions, and
// stops it and everything it started. Nothing in it fails the harness: a
// server that fails is what is measured.
func (b *bench) busyOnce(ctx context.Context, ws *workspace, ours bool, env []string) (run busyRun) {
	run = busyRun{ours: ours, loadBefore: loadAvg()}
	defer func() { run.loadAfter = loadAvg() }()
	ctx, cancel := context.WithTimeout(ctx, b.cfg.busyRunMax)
	defer cancel()
	name, argv := "gopls mcp", b.peerArgv()
	refsArgs := map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol}
	if ours {
		name, argv = "goplsmcp", b.oursArgv(ws.root)
		refsArgs["includeDeclaration"] = true
		refsArgs["limit"] = 10000
	}
	start := time.Now()
	s, err := startServer(name, argv, ws.root, env)
	if err != nil {
		run.refs.failed = err.Error()
		run.diag.failed = "not asked"
		return run
	}
	defer func() { run.leftoverKilled = closeTree(s) }()
	if err := s.initialize(ctx); err != nil {
		run.refs.failed = err.Error()
		run.diag.failed = "not asked"
		return run
	}
	run.refs = b.busyAsk(ctx, s, "go_symbol_references", refsArgs, start, func(a answer) (int, bool) { return refCount(a, ours) })
	if run.refs.failed != "" {
		run.diag.failed = "not asked"
		return run
	}
	run.diag = b.busyAsk(ctx, s, "go_diagnostics", map[string]any{}, time.Now(), func(a answer) (int, bool) { return diagnosticCount(a, ours) })
	return run
}

// busyAsk asks one question until it has an answer that is not a tool
// error, at most busyRetries times more.
func (b *bench) busyAsk(ctx context.Context, s *mcpServer, tool string, args map[string]any, since time.Time, count func(answer) (int, bool)) busyAsk {
	var q busyAsk
	for attempt := 0; ; attempt++ {
		a, err := s.call(ctx, tool, args)
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				q.failed = fmt.Sprintf("no answer within the run's %s", b.cfg.busyRunMax)
				q.timeouts++
			} else {
				q.failed = err.Error()
			}
			return q
		}
		if !a.isError {
			q.dur = time.Since(since)
			q.count, q.counted = count(a)
			return q
		}
		q.errors = append(q.errors, truncate(a.text, 200))
		if isTimeoutText(a.text) {
			q.timeouts++
		}
		if attempt == busyRetries {
			q.failed = "a tool error after " + fmt.Sprint(busyRetries) + " retries"
			return q
		}
	}
}

// ticksOr0 is a process's CPU ticks, or 0 where they cannot be read.
func ticksOr0(pid int) int64 {
	t, _ := cpuTicks(pid)
	return t
}

// summary is one line about a run, for the log and the table's notes.
func (r busyRun) summary() string {
	one := func(what string, a busyAsk) string {
		s := what + " "
		if a.failed != "" {
			s += "failed (" + truncate(a.failed, 160) + ")"
		} else {
			s += secs(a.dur)
		}
		if len(a.errors) > 0 {
			s += fmt.Sprintf(", %d tool errors: %s", len(a.errors), strings.Join(a.errors, "; "))
		}
		return s
	}
	s := one("references", r.refs) + "; " + one("diagnostics", r.diag)
	if r.leftoverKilled > 0 {
		s += fmt.Sprintf("; %d processes left behind, killed", r.leftoverKilled)
	}
	return s
}

// closeTree closes a server and kills whatever of its process tree
// outlives it by more than a few seconds (goplsmcp's gopls, should it not
// exit with its parent; a go command gopls started, which, holding the
// server's stderr, would keep close waiting as long as it runs), and
// returns how many it killed.
func closeTree(s *mcpServer) int {
	ids := make(map[int]string)
	for _, p := range tree(s.pid())[1:] {
		if id := procIdentity(p); id != "" {
			ids[p] = id
		}
	}
	alive := func() []int {
		var out []int
		for p, id := range ids {
			// The same process (not a new one with its pid), not
			// yet exited.
			if procIdentity(p) == id {
				out = append(out, p)
			}
		}
		return out
	}
	killed := 0
	kill := func() {
		for _, p := range alive() {
			if proc, err := os.FindProcess(p); err == nil && proc.Kill() == nil {
				killed++
			}
		}
	}
	closed := make(chan struct{})
	go func() {
		s.close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(15 * time.Second):
		// close kills the server after 10 s; what still holds its
		// pipes is a descendant.
		kill()
		<-closed
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(alive()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // polling /proc: nothing to wait on for a grandchild
	}
	kill()
	return killed
}

// procIdentity names a live process on Linux: its command and start
// time, which a later process given the same pid does not share; "" for
// a process that has gone or is a zombie, and everywhere but Linux.
func procIdentity(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return ""
	}
	f := strings.Fields(s[end+1:])
	// State is the first field after the name, start time the 20th.
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return ""
	}
	return s[:end+1] + " " + f[19]
}

// loadAvg is the machine's 1-, 5- and 15-minute load averages.
func loadAvg() string {
	f := strings.Fields(readTrim("/proc/loadavg"))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
