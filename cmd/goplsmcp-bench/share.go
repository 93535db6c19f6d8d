package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// shareCounts are the numbers of sessions open at which the sharing table
// reports memory; the sweep starts the last of them.
var shareCounts = []int{1, 2, 4, 8}

// shareCounts returns the numbers of sessions the plan sweeps: in smoke
// mode, which proves the harness (go test runs it), the first two of
// shareCounts only, since the --share off sweep of eight starts eight
// gopls processes, each loading the fixture, on a machine of two cores.
func (b *bench) shareCounts() []int {
	if b.plan.shareSmall {
		return shareCounts[:2]
	}
	return shareCounts
}

// share measures the shared daemon (goplsmcp --share auto, the default):
// N stdio sessions on one workspace, started one after another and left
// open, as agent clients start them, each session's time from starting
// its process to its first correct answer, and the memory of every
// process they make; shared, and with a gopls each (--share off), in the
// same run. Then the cost of the extra hop (stdio proxy, unix socket,
// daemon) per call, table 1's way: the same call alternately through a
// shared session and a session of its own, both warm.
func (b *bench) share(ctx context.Context, fx, gr *workspace) error {
	t := b.table(10, "Shared daemon: N stdio sessions",
		fmt.Sprintf("Sessions started one after another and left open, as clients start them (one sweep of %d; the row for N is its first N sessions). First answer: from starting the session's process to the first correct answer (every reference of the workspace's symbol); gopls's file cache warm (an unmeasured session first). Memory: of every process then running (the stdio processes, the daemon, every gopls), after they settle: the sum of their proportional set sizes (PSS: a page several processes map, such as the goplsmcp binary's code, counted once across them; what the machine spends), and for reference the sum of their resident set sizes (RSS: such pages counted in each process). Shared is the default (`--share auto`, a fresh runtime directory, so session 1 starts the daemon); own is `--share off`. Targets: sessions after the first ≤ 0.05 s p50 on GOROOT/src; 8 shared sessions' memory ≤ 1.25× one session's.", b.shareCounts()[len(b.shareCounts())-1]),
		"workspace", "mode", "N", "first answer of each session", "sessions 2–N p50", "memory (PSS), all processes", "vs N = 1", "RSS sum")
	jobs := []*workspace{fx}
	if gr != nil {
		jobs = append(jobs, gr)
	}
	for _, ws := range jobs {
		timeout := b.plan.callTimeout
		if !ws.fixture {
			timeout = b.plan.coldGorootTimeout
		}
		expect := ws.expectRefs
		if expect == 0 {
			expect = b.expectGorootRefs
		}
		// An unmeasured session warms gopls's file cache and learns the
		// count of a correct answer where it is not known.
		b.logf("sharing on %s: warm-up", ws.name)
		warm, err := b.shareSweep(ctx, ws, false, 1, expect, timeout)
		if err != nil {
			return err
		}
		expect = warm.count
		n := b.shareCounts()[len(b.shareCounts())-1]
		for _, shared := range []bool{true, false} {
			mode := "own gopls (--share off)"
			if shared {
				mode = "shared (default)"
			}
			b.logf("sharing on %s: %d sessions, %s", ws.name, n, mode)
			sw, err := b.shareSweep(ctx, ws, shared, n, expect, timeout)
			if err != nil {
				return err
			}
			for _, k := range b.shareCounts() {
				var firsts []string
				for _, d := range sw.firsts[:k] {
					firsts = append(firsts, fmt.Sprintf("%.2f", d.Seconds()))
				}
				later := "—"
				if k > 1 {
					later = secs(samples(sw.firsts[1:k]).p50())
				}
				t.add(ws.name, mode, fmt.Sprint(k), strings.Join(firsts, ", ")+" s", later, mib(sw.mem[k]), ratio(float64(sw.mem[k]), float64(sw.mem[1])), mib(sw.rss[k]))
			}
			if shared {
				p50 := samples(sw.firsts[1:]).p50()
				if !ws.fixture {
					b.rep.judge("9. shared daemon: sessions after the first answer their first question in ≤ 0.05 s p50 on GOROOT/src",
						fmt.Sprintf("%s (session 1: %s)", secs(p50), secs(sw.firsts[0])), p50 <= 50*time.Millisecond)
				}
				r := float64(sw.mem[n]) / float64(sw.mem[1])
				b.rep.judge(fmt.Sprintf("9. shared daemon on %s: memory of %d sessions ≤ 1.25× one session's", ws.name, n),
					fmt.Sprintf("%s (%s vs %s)", ratio(float64(sw.mem[n]), float64(sw.mem[1])), mib(sw.mem[n]), mib(sw.mem[1])), r <= 1.25)
			}
		}
	}
	return b.shareHop(ctx, fx)
}

// A sweep is what shareSweep measured.
type sweep struct {
	firsts []time.Duration
	mem    map[int]int64 // PSS in KiB, by sessions open
	rss    map[int]int64 // RSS in KiB, by sessions open
	count  int           // references in a correct answer
}

// shareSweep starts n sessions on ws one after another, each answering
// its first question before the next starts, and measures them. A shared
// sweep has a runtime directory of its own, whose daemon it stops.
func (b *bench) shareSweep(ctx context.Context, ws *workspace, shared bool, n, expect int, timeout time.Duration) (*sweep, error) {
	rt, err := b.runtimeDir()
	if err != nil {
		return nil, err
	}
	env := slices.DeleteFunc(b.envFor("goplsmcp"), func(kv string) bool { return strings.HasPrefix(kv, "GOPLSMCP_") })
	env = append(env, "GOPLSMCP_RUNTIME_DIR="+rt)
	argv := b.oursArgv(ws.root)
	if shared {
		argv = append(argv[:len(argv)-2], "--share", "auto")
	}
	var open []*mcpServer
	defer func() {
		for _, s := range open {
			s.close()
		}
		if shared {
			stop := exec.Command(b.cfg.goplsmcp, "daemon", "stop")
			stop.Env = env
			if out, err := stop.CombinedOutput(); err != nil {
				b.logf("goplsmcp daemon stop: %v: %s", err, out)
			}
		}
		os.RemoveAll(rt)
	}()
	sw := &sweep{mem: map[int]int64{}, rss: map[int]int64{}, count: expect}
	args := map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol, "includeDeclaration": true, "limit": 1000}
	settleMax := b.plan.settleMax
	if !ws.fixture {
		settleMax = b.plan.settleGorootMax
	}
	for i := range n {
		start := time.Now()
		s, err := startServer("goplsmcp", argv, ws.root, env)
		if err != nil {
			return nil, err
		}
		s.timeout = timeout
		open = append(open, s)
		if err := s.initialize(ctx); err != nil {
			return nil, err
		}
		var got int
		for tries := 0; ; tries++ {
			a, err := s.call(ctx, "go_symbol_references", args)
			if err != nil {
				return nil, fmt.Errorf("sharing on %s, session %d: %w", ws.name, i+1, err)
			}
			if c, ok := refCount(a, true); ok && !a.isError && c >= max(sw.count, 1) {
				got = c
				break
			}
			if tries == 100 {
				return nil, fmt.Errorf("sharing on %s, session %d: no correct answer in 100 calls; the last was %q", ws.name, i+1, truncate(a.text, 200))
			}
		}
		sw.firsts = append(sw.firsts, time.Since(start))
		if sw.count == 0 {
			sw.count = got
		}
		if slices.Contains(b.shareCounts(), i+1) || i+1 == n {
			var pids []int
			for _, s := range open {
				pids = append(pids, s.pid())
			}
			settle(ctx, pids, settleMax)
			seen := map[int]bool{}
			for _, p := range pids {
				// The daemon is a child of the session that started it.
				for _, q := range tree(p) {
					if seen[q] {
						continue
					}
					seen[q] = true
					if rss, _, err := memory(q); err == nil {
						sw.rss[i+1] += rss
					}
					sw.mem[i+1] += pss(q)
				}
			}
		}
	}
	return sw, nil
}

// shareHop times the same calls through a shared session and a session
// with a gopls of its own, alternating, both warm: the difference is what
// the proxy and the daemon's socket add.
func (b *bench) shareHop(ctx context.Context, ws *workspace) error {
	t := b.table(10, "Shared daemon: the extra hop",
		fmt.Sprintf("The same call through a shared stdio session (goplsmcp relaying to the daemon over its unix socket) and through a session with a gopls of its own (`--share off`), on the warm fixture, alternating, %d samples after %d warm-up rounds, table 1's way. Target: ≤ 0.2 ms added p50.", b.plan.overheadN, b.plan.warmN),
		"query", "shared p50", "shared p95", "own p50", "own p95", "added p50", "met")
	rt, err := b.runtimeDir()
	if err != nil {
		return err
	}
	env := slices.DeleteFunc(b.envFor("goplsmcp"), func(kv string) bool { return strings.HasPrefix(kv, "GOPLSMCP_") })
	env = append(env, "GOPLSMCP_RUNTIME_DIR="+rt)
	ownArgv := b.oursArgv(ws.root)
	sharedArgv := append(slices.Clone(ownArgv[:len(ownArgv)-2]), "--share", "auto")
	var sides [2]*mcpServer
	defer func() {
		for _, s := range sides {
			if s != nil {
				s.close()
			}
		}
		stop := exec.Command(b.cfg.goplsmcp, "daemon", "stop")
		stop.Env = env
		stop.Run()
		os.RemoveAll(rt)
	}()
	for i, argv := range [][]string{sharedArgv, ownArgv} {
		s, err := startServer("goplsmcp", argv, ws.root, env)
		if err != nil {
			return err
		}
		s.timeout = b.plan.callTimeout
		sides[i] = s
		if err := s.initialize(ctx); err != nil {
			return err
		}
		if _, err := s.mustCall(ctx, "go_symbol_references", map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol}); err != nil {
			return err
		}
	}
	queries := []struct {
		name, tool string
		args       map[string]any
	}{
		{"round trip only: MCP ping", "", nil},
		{"definition", "go_definition", map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol}},
		{"references, 200 uses (100 listed)", "go_symbol_references", map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol}},
	}
	for _, q := range queries {
		var got [2]samples
		for i := range b.plan.warmN + b.plan.overheadN {
			for k := range 2 {
				side := (i + k) % 2
				s := sides[side]
				var d time.Duration
				if q.tool == "" {
					start := time.Now()
					if _, err := s.client.CallRaw(ctx, "ping", nil); err != nil {
						return s.fail("ping", err)
					}
					d = time.Since(start)
				} else {
					a, err := s.mustCall(ctx, q.tool, q.args)
					if err != nil {
						return err
					}
					d = a.dur
				}
				if i >= b.plan.warmN {
					got[side] = append(got[side], d)
				}
			}
		}
		added := got[0].p50() - got[1].p50()
		t.add(q.name, ms(got[0].p50()), ms(got[0].p95()), ms(got[1].p50()), ms(got[1].p95()), ms(added), check(added <= 200*time.Microsecond))
		b.rep.judge("9. shared daemon: the extra hop adds ≤ 0.2 ms p50 ("+q.name+")", ms(added), added <= 200*time.Microsecond)
	}
	return nil
}

// pss is a process's proportional set size in KiB (0 if unknown): its
// private pages, and its share of those it maps with others.
func pss(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// runtimeDir makes a runtime directory for one measurement's daemon: under
// $GOPLSMCP_RUNTIME_DIR when that is set (make test checks that no daemon
// started there survives), else in the harness's temporary directory.
func (b *bench) runtimeDir() (string, error) {
	base := os.Getenv("GOPLSMCP_RUNTIME_DIR")
	if base == "" {
		base = b.tmp
	}
	return os.MkdirTemp(base, "rt")
}
