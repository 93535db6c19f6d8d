package main

import (
	"context"
	"fmt"
	"time"
)

// coldStarts times, for goplsmcp and for gopls mcp, the way from starting
// the process to the first correct answer: the references of the
// workspace's reference symbol, all of them.
func (b *bench) coldStarts(ctx context.Context, fx, gr *workspace) error {
	t := b.table(3, "Cold start",
		"From starting the server process to the first correct answer: initialize, then the references of the workspace's symbol (every one, declaration included), repeated until the count is right. gopls's on-disk cache is warm (a previous start on the same workspace), as it is on a developer machine; the processes are new. Starts alternate between the two servers. Target: goplsmcp within 10 % of gopls mcp.",
		"workspace", "question", "runs", "goplsmcp p50", "gopls mcp p50", "ratio", "goplsmcp min–max", "gopls mcp min–max", "answer", "met")
	type job struct {
		ws      *workspace
		n       int
		timeout time.Duration
	}
	jobs := []job{{fx, b.plan.coldFixtureN, b.plan.callTimeout}}
	if gr != nil {
		jobs = append(jobs, job{gr, b.plan.coldGorootN, b.plan.coldGorootTimeout})
	}
	for _, j := range jobs {
		if j.n == 0 {
			continue
		}
		expect := j.ws.expectRefs
		if expect == 0 {
			expect = b.expectGorootRefs
		}
		b.logf("cold start on %s (%d runs each)", j.ws.name, j.n)
		var ours, peer samples
		var oursN, peerN int
		for i := 0; i < j.n; i++ {
			for k := range 2 {
				isOurs := (i+k)%2 == 0
				d, n, err := b.coldOnce(ctx, j.ws, isOurs, expect, j.timeout)
				if err != nil {
					return err
				}
				if isOurs {
					ours, oursN = append(ours, d), n
				} else {
					peer, peerN = append(peer, d), n
				}
			}
		}
		r := float64(ours.p50()) / float64(peer.p50())
		answer := fmt.Sprintf("%d vs %d references", oursN, peerN)
		if expect == 0 {
			answer += " (first answer taken as correct: no warm count on this run)"
		}
		t.add(j.ws.name, "references of "+j.ws.refs.symbol, fmt.Sprint(j.n), secs(ours.p50()), secs(peer.p50()), ratio(float64(ours.p50()), float64(peer.p50())),
			secs(ours.pct(0))+" – "+secs(ours.pct(100)), secs(peer.pct(0))+" – "+secs(peer.pct(100)), answer, check(r <= 1.10))
		b.rep.judge("3. cold start to first correct answer on "+j.ws.name+": within 10 % of gopls mcp",
			fmt.Sprintf("%s (%s vs %s)", ratio(float64(ours.p50()), float64(peer.p50())), secs(ours.p50()), secs(peer.p50())), r <= 1.10)
	}
	return nil
}

// coldOnce starts one server on ws and returns the time to its first
// answer with at least expect references, and that answer's count.
func (b *bench) coldOnce(ctx context.Context, ws *workspace, ours bool, expect int, timeout time.Duration) (time.Duration, int, error) {
	side := "gopls-mcp"
	if ours {
		side = "goplsmcp"
	}
	return b.startOnce(ctx, ws, ours, expect, timeout, b.envFor(side))
}

// startOnce is coldOnce with the processes' environment given.
func (b *bench) startOnce(ctx context.Context, ws *workspace, ours bool, expect int, timeout time.Duration, env []string) (time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name, argv := "gopls mcp", b.peerArgv()
	args := map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol}
	if ours {
		name, argv = "goplsmcp", b.oursArgv(ws.root)
		args["includeDeclaration"] = true
		args["limit"] = 1000
	}
	start := time.Now()
	s, err := startServer(name, argv, ws.root, env)
	if err != nil {
		return 0, 0, err
	}
	s.timeout = timeout
	defer s.close()
	if err := s.initialize(ctx); err != nil {
		return 0, 0, err
	}
	var last answer
	for tries := 0; tries < 100; tries++ {
		a, err := s.call(ctx, "go_symbol_references", args)
		if err != nil {
			return 0, 0, fmt.Errorf("cold start of %s on %s: %w", name, ws.name, err)
		}
		last = a
		if a.isError {
			continue
		}
		if n, ok := refCount(a, ours); ok && n >= max(expect, 1) {
			return time.Since(start), n, nil
		}
	}
	return 0, 0, fmt.Errorf("cold start of %s on %s: no correct answer in 100 calls; the last was %q", name, ws.name, truncate(last.text, 200))
}
