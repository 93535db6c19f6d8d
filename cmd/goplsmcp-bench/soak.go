package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// The soak (table 12) runs the shared daemon as agents use it for hours:
// soakSessions stdio sessions calling at once, one of them replaced by a
// new one every soakChurn, each call also made, in the same run, to one
// gopls mcp. The call and memory periods are fixed fractions of the
// duration (10 and 5 minutes of an hour), so that a short run in a test
// has the same shape as the real one.
const (
	soakPeriods    = 6  // latency rows
	soakRSSSamples = 12 // memory rows
)

// soakConfig is the shape of one soak run.
type soakConfig struct {
	duration time.Duration
	churn    time.Duration
	sessions int
	// tools, if set, are the kinds of call asked (see soakCallAt); the
	// others are skipped, to tell which grows gopls.
	tools map[string]bool
	// pprof, if set, is a directory for both goplses' heap profiles and
	// debug pages (each gopls started with -debug), written at every
	// memory sample, to tell what grows.
	pprof string
	// args are extra goplsmcp arguments (-soak-arg), to try a setting.
	args []string
}

// soakTools are the workload's kinds of call, in turn.
var soakTools = []string{"go_file_context", "go_diagnostics", "go_search", "go_symbol_references", "go_package_api"}

// A soakCall is one question of the soak's workload, asked of both sides.
type soakCall struct {
	tool       string
	ours, peer map[string]any
}

// A soakFile is a source file the workload asks about, with an exported
// name it declares and the import path of its package.
type soakFile struct {
	path, name, pkg string
}

var soakDecl = regexp.MustCompile(`(?m)^(?:func|type) ([A-Z]\w*)`)

// soakFiles lists the workspace's files the workload asks about, in a
// fixed shuffled order: non-test Go files of the root module (nested
// modules, testdata and vendor left out) with no build constraint, so
// that every one is in a package gopls loads on this system, each with an
// exported top-level name to search for and find references of.
func soakFiles(root string) ([]soakFile, error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	var files []soakFile
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			if n := d.Name(); n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), "//go:build") || !goodOSArch(d.Name()) {
			return nil
		}
		m := soakDecl.FindSubmatch(data)
		if m == nil {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module
		if rel != "." {
			pkg = module + "/" + filepath.ToSlash(rel)
			if module == "std" {
				pkg = filepath.ToSlash(rel)
			}
		}
		files = append(files, soakFile{path: path, name: string(m[1]), pkg: pkg})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go file to ask about in %s", root)
	}
	r := rand.New(rand.NewPCG(33, 33))
	r.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	return files, nil
}

// goodOSArch reports whether a file name has no _GOOS or _GOARCH suffix
// for another system than linux/amd64, the harness's system.
func goodOSArch(name string) bool {
	parts := strings.Split(strings.TrimSuffix(name, ".go"), "_")
	for _, p := range parts[1:] {
		switch p {
		case "windows", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly", "solaris", "illumos", "aix", "plan9", "js", "wasip1", "wasm", "ios", "android", "zos",
			"386", "arm", "arm64", "loong64", "mips", "mipsle", "mips64", "mips64le", "ppc64", "ppc64le", "riscv64", "s390x":
			return false
		}
	}
	return true
}

func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// soakCallAt is the k-th call of the workload: a file after another,
// each asked five ways, so that a run goes through many distinct files
// and every kind of question comes up all along. goplsmcp is asked for
// what gopls mcp gives (table 2's arguments).
func soakCallAt(files []soakFile, k int) soakCall {
	const kinds = 5
	f := files[(k/kinds)%len(files)]
	switch k % kinds {
	case 0:
		return soakCall{"go_file_context", map[string]any{"file": f.path}, map[string]any{"file": f.path}}
	case 1:
		return soakCall{"go_diagnostics", map[string]any{"files": []string{f.path}}, map[string]any{"files": []string{f.path}}}
	case 2:
		return soakCall{"go_search", map[string]any{"query": f.name, "limit": 100}, map[string]any{"query": f.name}}
	case 3:
		return soakCall{"go_symbol_references", map[string]any{"file": f.path, "symbol": f.name, "includeDeclaration": true, "limit": 1000}, map[string]any{"file": f.path, "symbol": f.name}}
	default:
		return soakCall{"go_package_api", map[string]any{"packagePaths": []string{f.pkg}, "limit": 10000}, map[string]any{"packagePaths": []string{f.pkg}}}
	}
}

// A soakResult is one call on one side.
type soakResult struct {
	at   time.Duration // since the soak's start, at the answer
	dur  time.Duration
	fail bool   // no answer, or an error answer
	tool string // the kind of call
}

// soakLog collects the results, and is read at the end.
type soakLog struct {
	mu    sync.Mutex
	ours  []soakResult
	peer  []soakResult
	fails map[string]int // the first words of error answers, counted
}

func (l *soakLog) add(ours bool, r soakResult, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ours {
		l.ours = append(l.ours, r)
	} else {
		l.peer = append(l.peer, r)
	}
	if r.fail {
		if l.fails == nil {
			l.fails = map[string]int{}
		}
		side := "gopls mcp"
		if ours {
			side = "goplsmcp"
		}
		l.fails[side+": "+truncate(text, 120)]++
	}
}

// A soakPeriod is one latency row: the calls answered in [from, to).
type soakPeriod struct {
	from, to time.Duration
	calls    int
	fails    int
	p50, p99 time.Duration
}

// periods splits results into n equal periods of d.
func periods(rs []soakResult, d time.Duration, n int) []soakPeriod {
	out := make([]soakPeriod, n)
	durs := make([]samples, n)
	for i := range out {
		out[i].from, out[i].to = d*time.Duration(i)/time.Duration(n), d*time.Duration(i+1)/time.Duration(n)
	}
	for _, r := range rs {
		i := min(int(r.at*time.Duration(n)/d), n-1)
		out[i].calls++
		if r.fail {
			out[i].fails++
			continue
		}
		durs[i] = append(durs[i], r.dur)
	}
	for i := range out {
		out[i].p50, out[i].p99 = durs[i].p50(), durs[i].pct(99)
	}
	return out
}

// byTool returns the durations of the answered calls of one kind.
func byTool(rs []soakResult, tool string) samples {
	var out samples
	for _, r := range rs {
		if r.tool == tool && !r.fail {
			out = append(out, r.dur)
		}
	}
	return out
}

// A soakMem is one memory sample, RSS in KiB (0: not measured).
type soakMem struct {
	at                  time.Duration
	label               string
	daemon, gopls, peer int64
	// goplsCPU and peerCPU are the CPU ticks used so far by the daemon's
	// goplses (those it replaced included) and by gopls mcp, each with
	// the go commands it ran (0: not measured).
	goplsCPU, peerCPU int64
	replaced          int
	// renewals is how many times the daemon had renewed gopls's view,
	// recycles how many times it had replaced gopls for its memory (its
	// log's counts), -1 when its log could not be read.
	renewals, recycles int
}

// countLogged counts the lines with msg (lspclient's RenewalMessage or
// RecycleMessage) logged by the daemons whose logs are in the runtime
// directory rt, or -1 if there are none.
func countLogged(rt, msg string) int {
	n, found := 0, false
	filepath.WalkDir(rt, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".log") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		found = true
		n += strings.Count(string(data), msg)
		return nil
	})
	if !found {
		return -1
	}
	return n
}

// soakVerdict judges gopls's growth: its largest RSS in the last period
// against its RSS one period in, and against gopls mcp's largest in the
// last period.
func soakVerdict(mem []soakMem, d time.Duration) (early, late, peerLate int64) {
	for _, m := range mem {
		if m.label != "" {
			continue
		}
		if m.at == d/soakPeriods {
			early = m.gopls
		}
		if m.at >= d-d/soakPeriods {
			late = max(late, m.gopls)
			peerLate = max(peerLate, m.peer)
		}
	}
	return early, late, peerLate
}

// soak runs the soak on ws and reports it as table 12.
func (b *bench) soak(ctx context.Context, ws *workspace, sc soakConfig) error {
	files, err := soakFiles(ws.root)
	if err != nil {
		return err
	}
	rt, err := b.runtimeDir()
	if err != nil {
		return err
	}
	env := slices.DeleteFunc(b.envFor("goplsmcp"), func(kv string) bool { return strings.HasPrefix(kv, "GOPLSMCP_") })
	env = append(env, "GOPLSMCP_RUNTIME_DIR="+rt)
	argv := b.oursArgv(ws.root)
	argv = append(append(argv[:len(argv)-2], "--share", "auto"), sc.args...)
	peerArgv := b.peerArgv()
	var dbg *soakDebug
	if sc.pprof != "" {
		if dbg, err = newSoakDebug(sc.pprof); err != nil {
			return err
		}
		argv = append(argv, "--gopls-arg", "-debug="+dbg.ours)
	}
	timeout := b.callTimeout(ws.root)

	var (
		mu       sync.Mutex
		sessions = make([]*mcpServer, sc.sessions)
		replaced int
	)
	closeAll := func() {
		mu.Lock()
		defer mu.Unlock()
		for i, s := range sessions {
			if s != nil {
				s.close()
				sessions[i] = nil
			}
		}
	}
	defer func() {
		closeAll()
		stop := exec.Command(b.cfg.goplsmcp, "daemon", "stop")
		stop.Env = env
		if out, err := stop.CombinedOutput(); err != nil {
			b.logf("goplsmcp daemon stop: %v: %s", err, out)
		}
		os.RemoveAll(rt)
	}()
	start := func() (*mcpServer, error) {
		s, err := startServer("goplsmcp", argv, ws.root, env)
		if err != nil {
			return nil, err
		}
		s.timeout = timeout
		if err := s.initialize(ctx); err != nil {
			s.close()
			return nil, err
		}
		return s, nil
	}
	b.logf("soak on %s: %d files, %d sessions, one replaced every %s, for %s", ws.name, len(files), sc.sessions, sc.churn, sc.duration)
	peer, err := b.startMCP(ctx, "gopls mcp", peerArgv, ws.root, "gopls-mcp")
	if err != nil {
		return err
	}
	defer peer.close()
	for i := range sessions {
		if sessions[i], err = start(); err != nil {
			return err
		}
	}
	// Both sides load the workspace before the clock starts: one call
	// each, then quiet, so that the first period measures calls, not the
	// initial load.
	warm := soakCallAt(files, 3)
	if _, err := sessions[0].call(ctx, warm.tool, warm.ours); err != nil {
		return err
	}
	if _, err := peer.call(ctx, warm.tool, warm.peer); err != nil {
		return err
	}
	settle(ctx, []int{sessions[0].pid(), peer.pid(), b.daemonPID(rt)}, b.settleMax(ws))

	log := &soakLog{}
	var next atomic.Int64
	began := time.Now()
	end := began.Add(sc.duration)
	runCtx, stopRun := context.WithDeadline(ctx, end)
	defer stopRun()
	var wg sync.WaitGroup
	var fatal error
	var fatalOnce sync.Once
	for w := range sc.sessions {
		wg.Go(func() {
			// Worker w replaces its session at churn·(w+1), then every
			// churn·sessions: one session of all every churn.
			due := began.Add(sc.churn * time.Duration(w+1))
			for n := 0; runCtx.Err() == nil; n++ {
				if time.Now().After(due) {
					mu.Lock()
					old := sessions[w]
					mu.Unlock()
					old.close()
					s, err := start()
					if err != nil {
						fatalOnce.Do(func() { fatal = fmt.Errorf("replacing session %d: %w", w+1, err) })
						stopRun()
						return
					}
					mu.Lock()
					sessions[w] = s
					replaced++
					mu.Unlock()
					due = due.Add(sc.churn * time.Duration(sc.sessions))
				}
				mu.Lock()
				s := sessions[w]
				mu.Unlock()
				c := soakCallAt(files, int(next.Add(1)-1))
				for sc.tools != nil && !sc.tools[c.tool] {
					c = soakCallAt(files, int(next.Add(1)-1))
				}
				sides := []bool{true, false}
				if n%2 == 1 {
					sides = []bool{false, true}
				}
				for _, ours := range sides {
					srv, args := s, c.ours
					if !ours {
						srv, args = peer, c.peer
					}
					a, err := srv.call(ctx, c.tool, args)
					text := a.text
					if err != nil {
						text = err.Error()
						select {
						case <-srv.exited:
							if !ours {
								fatalOnce.Do(func() { fatal = err })
								stopRun()
								return
							}
							// A session that died is replaced at once.
							due = time.Now()
						default:
						}
					}
					log.add(ours, soakResult{at: time.Since(began), dur: a.dur, fail: err != nil || a.isError, tool: c.tool}, c.tool+": "+text)
				}
			}
		})
	}
	var mem []soakMem
	sample := func(label string) {
		m := soakMem{at: time.Since(began).Round(time.Second), label: label}
		if pid := b.daemonPID(rt); pid != 0 {
			m.daemon, _, _ = memory(pid)
			// The goplses the daemon stopped count through its reaped
			// children's times; a gopls's go commands through its own.
			_, m.goplsCPU, _ = lifeTicks(pid)
			for _, q := range tree(pid)[1:] {
				r, _, _ := memory(q)
				m.gopls += r
				self, _, _ := lifeTicks(q)
				m.goplsCPU += self
			}
		}
		m.peer, _, _ = memory(peer.pid())
		for _, q := range tree(peer.pid()) {
			self, _, _ := lifeTicks(q)
			m.peerCPU += self
		}
		m.renewals = countLogged(rt, lspclient.RenewalMessage)
		m.recycles = countLogged(rt, lspclient.RecycleMessage)
		mu.Lock()
		m.replaced = replaced
		mu.Unlock()
		mem = append(mem, m)
		if dbg != nil {
			dbg.snapshot(ctx, len(mem)-1, b.logf)
		}
	}
	sample("start")
	mem[0].at = 0
	for i := 1; i <= soakRSSSamples; i++ {
		at := began.Add(sc.duration * time.Duration(i) / soakRSSSamples)
		t := time.NewTimer(time.Until(at))
		select {
		case <-ctx.Done():
			t.Stop()
			stopRun()
			wg.Wait()
			return ctx.Err()
		case <-t.C:
		}
		if i == soakRSSSamples {
			// The last sample is taken as the calls stop.
			stopRun()
		}
		sample("")
		mem[len(mem)-1].at = sc.duration * time.Duration(i) / soakRSSSamples
	}
	wg.Wait()
	if fatal != nil {
		return fmt.Errorf("soak: %w", fatal)
	}
	// Every session closes; the daemon then closes the documents it kept
	// open in gopls, and lives on for its --idle.
	closeAll()
	gopls := b.daemonPID(rt)
	settle(ctx, []int{gopls, peer.pid()}, b.settleMax(ws))
	sample("all sessions closed, gopls quiet")
	after := time.NewTimer(max(sc.duration/60, time.Second))
	select {
	case <-ctx.Done():
		after.Stop()
		return ctx.Err()
	case <-after.C:
	}
	sample(fmt.Sprintf("%s later", max(sc.duration/60, time.Second)))
	b.soakReport(ws, sc, log, mem, len(files), int(next.Load()))
	return nil
}

// settleMax is how long to wait for gopls to go quiet on ws.
func (b *bench) settleMax(ws *workspace) time.Duration {
	if ws.fixture {
		return b.plan.settleMax
	}
	return b.plan.settleGorootMax
}

// daemonPID returns the PID of the daemon serving the runtime directory
// rt (0 if none): its info file there names it.
func (b *bench) daemonPID(rt string) int {
	var pid int
	filepath.WalkDir(rt, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || pid != 0 {
			return nil
		}
		var info struct {
			PID int `json:"pid"`
		}
		if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &info) == nil && info.PID > 0 {
			pid = info.PID
		}
		return nil
	})
	return pid
}

func (b *bench) soakReport(ws *workspace, sc soakConfig, log *soakLog, mem []soakMem, nfiles, calls int) {
	d := sc.duration
	t := b.table(12, "Soak: calls",
		fmt.Sprintf("%s of mixed calls on %s: %d stdio sessions through one shared daemon (`--share auto`), calling at once, one of them replaced by a new session every %s; every call also made, by the same session's loop, to one `gopls mcp` started once (a gopls mcp session is its own gopls, so replacing one would restart its memory, not test it), the two sides alternating who goes first. The calls go through %d files (non-test, no build constraint, outside nested modules), shuffled, each asked five ways in turn: go_file_context, go_diagnostics of the file, go_search of a name it declares (a new query each time), go_symbol_references of that name, go_package_api of its package; goplsmcp with table 2's arguments. Failures are calls without an answer or with an error answer. p50 and p99 of the answered calls, per %s.", d, ws.name, sc.sessions, sc.churn, nfiles, d/soakPeriods),
		"period", "goplsmcp calls", "errors", "p50", "p99", "gopls mcp calls", "errors", "p50", "p99")
	ours, peer := periods(log.ours, d, soakPeriods), periods(log.peer, d, soakPeriods)
	var oursFails, peerFails int
	for i := range ours {
		o, p := ours[i], peer[i]
		oursFails += o.fails
		peerFails += p.fails
		t.add(fmt.Sprintf("%s–%s", soakTime(o.from, d), soakTime(o.to, d)), fmt.Sprint(o.calls), fmt.Sprint(o.fails), ms(o.p50), ms(o.p99), fmt.Sprint(p.calls), fmt.Sprint(p.fails), ms(p.p50), ms(p.p99))
	}
	t.note("%d calls of the workload made to each side (%d files: %.1f passes)", calls, nfiles, float64(calls)/5/float64(nfiles))
	if sc.tools != nil {
		var asked []string
		for _, k := range soakTools {
			if sc.tools[k] {
				asked = append(asked, k)
			}
		}
		t.note("only these kinds were asked (-soak-tools): %s", strings.Join(asked, ", "))
	}
	fails := slices.Sorted(func(yield func(string) bool) {
		for k := range log.fails {
			if !yield(k) {
				return
			}
		}
	})
	for i, k := range fails {
		if i == 10 {
			t.note("… and %d other kinds of failure", len(fails)-10)
			break
		}
		t.note("failure ×%d: %s", log.fails[k], k)
	}
	k := b.table(12, "Soak: calls by kind",
		"p50 and p99 of each kind of call over the whole soak, answered calls only, each side; the ratio is of the p50s.",
		"call", "goplsmcp calls", "p50", "p99", "gopls mcp calls", "p50", "p99", "ratio")
	for _, tool := range soakTools {
		o, p := byTool(log.ours, tool), byTool(log.peer, tool)
		if len(o) == 0 && len(p) == 0 {
			continue
		}
		k.add(tool, fmt.Sprint(len(o)), ms(o.p50()), ms(o.pct(99)), fmt.Sprint(len(p)), ms(p.p50()), ms(p.pct(99)), ratio(float64(o.p50()), float64(p.p50())))
	}
	m := b.table(12, "Soak: memory",
		fmt.Sprintf("Resident memory (RSS, /proc/PID/status) every %s of the soak: the shared daemon's own process, its gopls, and `gopls mcp` (one process: its MCP server is gopls); views renewed: how many times by then the daemon had renewed gopls's view (counted in its log), which gives back what gopls keeps of every package it once had open; gopls replaced: how many times it had replaced gopls, at such a moment, for its memory; CPU: user and system time used since the start by the daemon's goplses (the replaced ones too) and by `gopls mcp`, each with the go commands it ran (/proc/PID/stat). Then, once every session has closed (the daemon closes the documents it kept open in gopls and stays for its `--idle`), after gopls is quiet and again a little later. Targets: gopls's largest RSS in the last %s ≤ 1.2× its RSS %s in, and ≤ 1.1× gopls mcp's largest in the same %s.", d/soakRSSSamples, d/soakPeriods, d/soakPeriods, d/soakPeriods),
		"at", "sessions replaced", "views renewed", "gopls replaced", "daemon RSS", "its gopls RSS", "gopls mcp RSS", "its gopls CPU", "gopls mcp CPU")
	for _, s := range mem {
		when := soakTime(s.at, d)
		if s.label != "" {
			when = s.label
		}
		renewed, recycled := "—", "—"
		if s.renewals >= 0 {
			renewed, recycled = fmt.Sprint(s.renewals), fmt.Sprint(s.recycles)
		}
		m.add(when, fmt.Sprint(s.replaced), renewed, recycled, mibOr(s.daemon), mibOr(s.gopls), mibOr(s.peer), cpuOr(s.goplsCPU), cpuOr(s.peerCPU))
	}
	early, late, peerLate := soakVerdict(mem, d)
	if early == 0 || late == 0 {
		b.rep.unavailable("12. soak: gopls RSS flat", "no memory figures on this system")
		return
	}
	b.rep.judge(fmt.Sprintf("12. soak: gopls RSS in the last %s ≤ 1.2× its RSS %s in", d/soakPeriods, d/soakPeriods),
		fmt.Sprintf("%s (%s vs %s)", ratio(float64(late), float64(early)), mib(late), mib(early)), float64(late) <= 1.2*float64(early))
	b.rep.judge(fmt.Sprintf("12. soak: gopls RSS in the last %s ≤ 1.1× gopls mcp's", d/soakPeriods),
		fmt.Sprintf("%s (%s vs %s)", ratio(float64(late), float64(peerLate)), mib(late), mib(peerLate)), float64(late) <= 1.1*float64(peerLate))
	b.rep.judge("12. soak: no goplsmcp call fails where gopls mcp answers",
		fmt.Sprintf("%d failed vs %d failed", oursFails, peerFails), oursFails <= peerFails)
}

// soakTime formats a time into a soak of duration d: minutes for a real soak,
// seconds for a short one (a test's).
func soakTime(t, d time.Duration) string {
	if d < 10*time.Minute {
		return fmt.Sprintf("%.1f s", t.Seconds())
	}
	return fmt.Sprintf("%.0f min", t.Minutes())
}

// cpuOr formats CPU ticks as seconds ("—": not measured).
func cpuOr(ticks int64) string {
	if ticks == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f s", float64(ticks)/userHZ)
}

func mibOr(kib int64) string {
	if kib == 0 {
		return "—"
	}
	return mib(kib)
}
