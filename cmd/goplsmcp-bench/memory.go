package main

import (
	"context"
	"fmt"
	"time"
)

// memory tops goplsmcp up to the plan's number of calls, then reads its
// own resident memory (gopls, its child, apart) and its CPU use while
// nobody calls it.
func (b *bench) memory(ctx context.Context, ws *workspace, s *servers) error {
	t := b.table(5, "Memory and idle",
		"goplsmcp's own process, without its gopls child (shown for context): resident memory read from /proc/PID/status after the calls, and CPU time (utime + stime from /proc/PID/stat, 10 ms ticks) over a window with no calls. Targets: goplsmcp RSS ≤ 20 MB after 1,000 calls; 0 % CPU when idle.",
		"process", "calls made", "RSS", "peak RSS", "idle CPU", "met")
	wrapCall, err := find(ws.root, editFile, "core.Wrap(", 5)
	if err != nil {
		return err
	}
	// A mix of cheap calls, so that the count is reached quickly.
	mix := []struct {
		tool string
		args map[string]any
	}{
		{"go_describe", map[string]any{"file": editFile, "line": wrapCall.line + 1, "column": wrapCall.char + 1}},
		{"go_definition", map[string]any{"file": editFile, "line": wrapCall.line + 1, "column": wrapCall.char + 1}},
		{"go_symbols", map[string]any{"file": editFile}},
		{"go_symbol_references", map[string]any{"file": editFile, "symbol": "Item"}},
	}
	for i := 0; s.ours.calls.Load() < int64(b.plan.memCalls); i++ {
		m := mix[i%len(mix)]
		if _, err := s.ours.mustCall(ctx, m.tool, m.args); err != nil {
			return err
		}
	}
	calls := s.ours.calls.Load()

	ours := s.ours.pid()
	rss, peak, err := memory(ours)
	if err != nil {
		t.note("memory not measured: %v", err)
		b.rep.unavailable("5. goplsmcp RSS ≤ 20 MB after 1,000 calls", "no /proc on this system")
		return nil
	}
	var goplsPID int
	if kids := tree(ours); len(kids) > 1 {
		goplsPID = kids[1]
	}

	// Idle: no call in flight; gopls may still finish background work, so
	// its figure is context, not a target.
	before, _ := cpuTicks(ours)
	goplsBefore, _ := cpuTicks(goplsPID)
	window := time.NewTimer(b.plan.idleWindow)
	select {
	case <-ctx.Done():
		window.Stop()
		return ctx.Err()
	case <-window.C:
	}
	after, _ := cpuTicks(ours)
	goplsAfter, _ := cpuTicks(goplsPID)
	idle := func(ticks int64) string {
		cpu := float64(ticks) * (1000 / userHZ) / float64(b.plan.idleWindow.Milliseconds()) * 100
		return fmt.Sprintf("%.1f %% (%d ticks in %s)", cpu, ticks, secs(b.plan.idleWindow))
	}
	const limit = 20_000_000
	rssOK := rss*1024 <= limit
	idleOK := after-before == 0
	t.add("goplsmcp", fmt.Sprint(calls), mib(rss), mib(peak), idle(after-before), check(rssOK && idleOK))
	if goplsPID != 0 {
		if grss, gpeak, err := memory(goplsPID); err == nil {
			t.add("its gopls (context)", "—", mib(grss), mib(gpeak), idle(goplsAfter-goplsBefore), "—")
		}
	}
	if calls < 1000 {
		t.note("this mode makes %d calls, not 1,000", calls)
	}
	b.rep.judge(fmt.Sprintf("5. goplsmcp RSS ≤ 20 MB after %d calls", calls), fmt.Sprintf("%s (peak %s)", mib(rss), mib(peak)), rssOK)
	b.rep.judge("5. goplsmcp CPU when idle = 0 %", idle(after-before), idleOK)
	return nil
}

// mib formats KiB as MB (10⁶ bytes), the unit of the target.
func mib(kib int64) string {
	return fmt.Sprintf("%.1f MB", float64(kib)*1024/1e6)
}
