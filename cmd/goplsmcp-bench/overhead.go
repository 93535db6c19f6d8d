package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A query is one question asked both ways: as a goplsmcp tool call and as
// the LSP request(s) the bridge makes for it, sent by the direct client.
type query struct {
	name string
	// tool is the goplsmcp tool, or "" for a ping.
	tool string
	args map[string]any
	// direct sends the equivalent LSP request and returns how long it
	// took.
	direct func(ctx context.Context) (time.Duration, error)
}

// lspQuery is a direct side that sends one request.
func lspQuery(d *directClient, method string, params any) func(ctx context.Context) (time.Duration, error) {
	return func(ctx context.Context) (time.Duration, error) {
		_, dur, err := d.request(ctx, method, params)
		return dur, err
	}
}

// fixtureQueries are the questions of the bridge-overhead table, addressed
// by position so that both sides ask gopls exactly the same thing.
func fixtureQueries(ctx context.Context, ws *workspace, d *directClient) ([]query, error) {
	const item = "inventory/item.go"
	wrapCall, err := find(ws.root, item, "core.Wrap(", 5)
	if err != nil {
		return nil, err
	}
	itemType, err := find(ws.root, item, "type Item ", 5)
	if err != nil {
		return nil, err
	}
	itemURI, err := d.open(ctx, item)
	if err != nil {
		return nil, err
	}
	const broken = "broken/broken.go"
	brokenURI, err := d.open(ctx, broken)
	if err != nil {
		return nil, err
	}
	// The label says how many uses the smaller reference query has.
	raw, _, err := d.request(ctx, "textDocument/references", references(itemURI, itemType, false))
	if err != nil {
		return nil, err
	}
	var itemRefs []json.RawMessage
	if err := json.Unmarshal(raw, &itemRefs); err != nil {
		return nil, err
	}
	at := func(p pos) map[string]any {
		return map[string]any{"file": item, "line": p.line + 1, "column": p.char + 1}
	}
	return []query{
		{"describe (hover)", "go_describe", at(wrapCall),
			lspQuery(d, "textDocument/hover", position(itemURI, wrapCall))},
		{"definition", "go_definition", at(wrapCall),
			lspQuery(d, "textDocument/definition", position(itemURI, wrapCall))},
		{fmt.Sprintf("references, %d uses", len(itemRefs)), "go_symbol_references", at(itemType),
			lspQuery(d, "textDocument/references", references(itemURI, itemType, false))},
		{fmt.Sprintf("references, %d uses (100 listed)", wrapUses), "go_symbol_references", at(wrapCall),
			lspQuery(d, "textDocument/references", references(itemURI, wrapCall, false))},
		{"symbols (outline)", "go_symbols", map[string]any{"file": item},
			lspQuery(d, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": itemURI}})},
		// The floor: a round trip that does no work, through each path.
		{"round trip only: MCP ping / LSP request gopls rejects", "", nil,
			func(ctx context.Context) (time.Duration, error) {
				_, dur, err := d.request(ctx, "goplsmcp/bench/noSuchMethod", map[string]any{})
				if err == nil {
					return 0, errors.New("gopls accepted a request for a method that does not exist")
				}
				return dur, nil
			}},
		{"diagnostics of an open file", "go_diagnostics", map[string]any{"files": []string{broken}},
			func(ctx context.Context) (time.Duration, error) {
				start := time.Now()
				_, err := d.c.DiagnoseFile(ctx, brokenURI)
				return time.Since(start), err
			}},
	}, nil
}

// overhead times each query through goplsmcp over stdio and through the
// direct client, alternating which goes first, on the same warm workspace.
func (b *bench) overhead(ctx context.Context, ws *workspace, s *servers) error {
	qs, err := fixtureQueries(ctx, ws, s.direct)
	if err != nil {
		return err
	}
	ours := make([]samples, len(qs))
	direct := make([]samples, len(qs))
	// cpu is goplsmcp's own CPU time spent on each query's calls: the
	// bridge's work, apart from the waiting on processes and pipes.
	cpu := make([]time.Duration, len(qs))
	_, cpuErr := cpuNanos(s.ours.pid())
	for i := -b.plan.warmN; i < b.plan.overheadN; i++ {
		for j, q := range qs {
			var od, dd time.Duration
			runOurs := func() error {
				before, _ := cpuNanos(s.ours.pid())
				defer func() {
					if i >= 0 {
						after, _ := cpuNanos(s.ours.pid())
						cpu[j] += time.Duration(after - before)
					}
				}()
				if q.tool == "" {
					start := time.Now()
					_, err := s.ours.client.CallRaw(ctx, "ping", nil)
					od = time.Since(start)
					return err
				}
				a, err := s.ours.mustCall(ctx, q.tool, q.args)
				od = a.dur
				return err
			}
			runDirect := func() (err error) {
				dd, err = q.direct(ctx)
				return err
			}
			first, second := runOurs, runDirect
			if i%2 != 0 {
				first, second = runDirect, runOurs
			}
			if err := first(); err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			if err := second(); err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			if i >= 0 {
				ours[j] = append(ours[j], od)
				direct[j] = append(direct[j], dd)
			}
		}
	}
	t := b.table(1, "Bridge overhead",
		fmt.Sprintf("The same question through goplsmcp over stdio (a child process, JSON-RPC lines, the bridge's addressing, shaping and rendering) and as the bare LSP request from an in-process client (lspclient) to its own gopls, same binary, same warm workspace (%s). %d alternating samples per query after %d warm-up rounds. goplsmcp CPU per call is the CPU time its process used during the call (from /proc/PID/task/*/schedstat): the bridge's own work, as opposed to waiting for processes to be scheduled and pipes to be read. Target: p50 ratio ≤ 1.05, or ≤ 0.5 ms added per call.", ws.name, b.plan.overheadN, b.plan.warmN),
		"query", "tool", "goplsmcp p50", "goplsmcp p95", "direct LSP p50", "direct LSP p95", "p50 ratio", "added p50", "goplsmcp CPU per call", "met")
	cpuPerCall := func(j int) string {
		if cpuErr != nil {
			return "—"
		}
		return ms(cpu[j] / time.Duration(b.plan.overheadN))
	}
	allMet := true
	worst := ""
	var worstAdded time.Duration
	for j, q := range qs {
		op50, dp50 := ours[j].p50(), direct[j].p50()
		added := op50 - dp50
		r := float64(op50) / float64(dp50)
		if q.tool == "" {
			// The round trip that does no work shows where the time
			// goes; it is not judged.
			t.add(q.name, "ping", ms(op50), ms(ours[j].p95()), ms(dp50), ms(direct[j].p95()), ratio(float64(op50), float64(dp50)), ms(added), cpuPerCall(j), "—")
			continue
		}
		met := r <= 1.05 || added <= 500*time.Microsecond
		allMet = allMet && met
		if worst == "" || added > worstAdded {
			worst, worstAdded = q.name, added
		}
		t.add(q.name, q.tool, ms(op50), ms(ours[j].p95()), ms(dp50), ms(direct[j].p95()), ratio(float64(op50), float64(dp50)), ms(added), cpuPerCall(j), check(met))
	}
	b.rep.judge("1. bridge overhead: p50 ratio ≤ 1.05 or ≤ 0.5 ms added, per query",
		fmt.Sprintf("largest added p50: %s (%s)", ms(worstAdded), worst), allMet)
	return nil
}
