package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// concurrency times eight different read calls made one after another and
// the same eight made at once, through goplsmcp and through the direct
// client.
func (b *bench) concurrency(ctx context.Context, ws *workspace, s *servers) error {
	t := b.table(7, "Concurrency",
		fmt.Sprintf("Eight different read calls (describe, definition, references, outline over five packages) one after another, then all eight at once; %d rounds, the two ways alternating. Throughput ratio = sequential time / concurrent time (above 1: concurrent calls overlap). gopls does the work; on a machine with few cores the ratio is bounded by them.", b.plan.concRounds),
		"client", "8 sequential p50", "8 concurrent p50", "throughput ratio")
	spots := []struct {
		tool   string
		method string
		file   string
		needle string
		offset int
	}{
		{"go_describe", "textDocument/hover", "inventory/item.go", "core.Wrap(", 5},
		{"go_definition", "textDocument/definition", "billing/invoice.go", "core.Wrap(", 5},
		{"go_symbol_references", "textDocument/references", "inventory/item.go", "type Item ", 5},
		{"go_symbols", "textDocument/documentSymbol", "shipping/parcel.go", "", 0},
		{"go_describe", "textDocument/hover", "catalog/product.go", "core.ParseSKU(", 5},
		{"go_definition", "textDocument/definition", "accounts/customer.go", "core.Store", 5},
		{"go_symbol_references", "textDocument/references", "core/amount.go", "func (a Amount) Add(", 16},
		{"go_symbols", "textDocument/documentSymbol", "core/store.go", "", 0},
	}
	var ours, direct []func(context.Context) error
	for _, sp := range spots {
		uri, err := s.direct.open(ctx, sp.file)
		if err != nil {
			return err
		}
		args := map[string]any{"file": sp.file}
		var params any = map[string]any{"textDocument": map[string]any{"uri": uri}}
		if sp.needle != "" {
			p, err := find(ws.root, sp.file, sp.needle, sp.offset)
			if err != nil {
				return err
			}
			args["line"], args["column"] = p.line+1, p.char+1
			params = position(uri, p)
			if sp.method == "textDocument/references" {
				params = references(uri, p, false)
			}
		}
		ours = append(ours, func(ctx context.Context) error {
			_, err := s.ours.mustCall(ctx, sp.tool, args)
			return err
		})
		direct = append(direct, func(ctx context.Context) error {
			_, _, err := s.direct.request(ctx, sp.method, params)
			return err
		})
	}
	for _, side := range []struct {
		name  string
		calls []func(context.Context) error
	}{{"goplsmcp over stdio", ours}, {"direct LSP", direct}} {
		seq, conc, err := b.seqVersusConc(ctx, side.calls)
		if err != nil {
			return fmt.Errorf("%s: %w", side.name, err)
		}
		t.add(side.name, ms(seq.p50()), ms(conc.p50()), durRatio(seq.p50(), conc.p50()))
	}
	t.note("no target is set for this ratio; it shows that goplsmcp does not serialise calls that gopls could answer in parallel (compare the two rows)")
	return b.newPackagesLoading(ctx)
}

// seqVersusConc runs calls one by one and all at once, alternately, for
// the plan's number of rounds after one unmeasured round.
func (b *bench) seqVersusConc(ctx context.Context, calls []func(context.Context) error) (seq, conc samples, err error) {
	sequential := func() (time.Duration, error) {
		start := time.Now()
		for _, c := range calls {
			if err := c(ctx); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	concurrent := func() (time.Duration, error) {
		var wg sync.WaitGroup
		errs := make([]error, len(calls))
		start := time.Now()
		for i, c := range calls {
			wg.Go(func() { errs[i] = c(ctx) })
		}
		wg.Wait()
		d := time.Since(start)
		for _, err := range errs {
			if err != nil {
				return 0, err
			}
		}
		return d, nil
	}
	for i := -1; i < b.plan.concRounds; i++ {
		first, second := sequential, concurrent
		if i%2 != 0 {
			first, second = concurrent, sequential
		}
		d1, err := first()
		if err != nil {
			return nil, nil, err
		}
		d2, err := second()
		if err != nil {
			return nil, nil, err
		}
		if i < 0 {
			continue
		}
		if i%2 != 0 {
			d1, d2 = d2, d1
		}
		seq, conc = append(seq, d1), append(conc, d2)
	}
	return seq, conc, nil
}

// newPackages is how many package directories appear at once in
// newPackagesLoading, as a branch switch makes them: as many as goplsmcp
// loads at once.
const newPackages = 32

// newPackagesLoading times an unrelated call — go_describe of a name in a
// file gopls knows — at rest and while 32 new package directories load,
// on a goplsmcp of its own on a copy of the fixture (the other sides'
// gopls would load them too). Each round makes the directories appear,
// asks go_search for a symbol of one of them (it waits for the loads) and
// meanwhile makes the unrelated call again and again until the search has
// its answer; then the directories go, gopls settles, and the call is
// timed at rest.
func (b *bench) newPackagesLoading(ctx context.Context) error {
	ws, err := b.fixtureWorkspace("loads")
	if err != nil {
		return err
	}
	ours, err := b.startOurs(ctx, ws.root, "goplsmcp-loads")
	if err != nil {
		return err
	}
	defer ours.close()
	settleOurs := func() {
		if _, quiet := settle(ctx, []int{ours.pid()}, b.plan.settleMax); !quiet {
			b.logf("warning: gopls still busy; measuring anyway")
		}
	}
	settleOurs()
	const file = "inventory/item.go"
	p, err := find(ws.root, file, "core.Wrap(", 5)
	if err != nil {
		return err
	}
	describe := map[string]any{"file": file, "line": p.line + 1, "column": p.char + 1}
	atRest, err := ours.mustCall(ctx, "go_describe", describe)
	if err != nil {
		return err
	}
	for range b.plan.warmN {
		if _, err := ours.mustCall(ctx, "go_describe", describe); err != nil {
			return err
		}
	}
	var rest, loading, first, search samples
	for r := range b.plan.loadRounds {
		for range b.plan.restCalls {
			a, err := ours.mustCall(ctx, "go_describe", describe)
			if err != nil {
				return err
			}
			rest = append(rest, a.dur)
		}
		dir := filepath.Join(ws.root, fmt.Sprintf("fresh%d", r))
		for i := range newPackages {
			pkg := filepath.Join(dir, fmt.Sprintf("p%d", i))
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				return err
			}
			src := fmt.Sprintf("package p%d\n\n// Fresh%dx%d is declared in a new package.\nfunc Fresh%dx%d() {}\n", i, r, i, r, i)
			if err := os.WriteFile(filepath.Join(pkg, "p.go"), []byte(src), 0o644); err != nil {
				return err
			}
		}
		wanted := fmt.Sprintf("Fresh%dx%d", r, newPackages/2)
		type result struct {
			a   answer
			err error
		}
		searched := make(chan result, 1)
		go func() {
			a, err := ours.mustCall(ctx, "go_search", map[string]any{"query": wanted})
			searched <- result{a, err}
		}()
		var res result
		for n := 0; ; n++ {
			a, err := ours.mustCall(ctx, "go_describe", describe)
			if err != nil {
				return err
			}
			if a.text != atRest.text {
				return fmt.Errorf("go_describe while new packages load answered %q, at rest %q", a.text, atRest.text)
			}
			loading = append(loading, a.dur)
			if n == 0 {
				first = append(first, a.dur)
			}
			select {
			case res = <-searched:
			default:
				continue
			}
			break
		}
		if res.err != nil {
			return res.err
		}
		if !strings.Contains(res.a.text, wanted) {
			return fmt.Errorf("go_search %q after new packages appeared did not find it: %.300s", wanted, res.a.text)
		}
		search = append(search, res.a.dur)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		// gopls is told, and done with it, before the next round.
		if _, err := ours.mustCall(ctx, "go_describe", describe); err != nil {
			return err
		}
		settleOurs()
	}
	t := &table{num: 7, title: "7. Concurrency: new packages loading",
		intro:  fmt.Sprintf("An unrelated call (go_describe of a name in a file gopls knows) at rest, and while %d new package directories appear and load, as after a branch switch; %d rounds on a goplsmcp of its own, each with %d calls at rest and, while a go_search for a symbol of a new package waits for the loads, the unrelated call made again and again until the search answers. Target: ≤ 2× the call at rest, p50 and p95.", newPackages, b.plan.loadRounds, b.plan.restCalls),
		header: []string{"call", "n", "p50", "p95", "p50 ratio", "p95 ratio", "met"}}
	b.rep.tables = append(b.rep.tables, t)
	r50, r95 := float64(loading.p50())/float64(rest.p50()), float64(loading.p95())/float64(rest.p95())
	met := r50 <= 2 && r95 <= 2
	t.add("go_describe at rest", fmt.Sprint(len(rest)), ms(rest.p50()), ms(rest.p95()), "1.00×", "1.00×", "—")
	t.add(fmt.Sprintf("go_describe while %d new packages load", newPackages), fmt.Sprint(len(loading)), ms(loading.p50()), ms(loading.p95()),
		durRatio(loading.p50(), rest.p50()), durRatio(loading.p95(), rest.p95()), check(met))
	t.add("the first go_describe after they appear", fmt.Sprint(len(first)), ms(first.p50()), ms(first.p95()),
		durRatio(first.p50(), rest.p50()), durRatio(first.p95(), rest.p95()), "—")
	t.add("go_search for a new package's symbol (waits for the loads)", fmt.Sprint(len(search)), ms(search.p50()), ms(search.p95()), "—", "—", "—")
	b.rep.judge(fmt.Sprintf("7. unrelated call while %d new packages load: p50 and p95 ≤ 2× at rest", newPackages),
		fmt.Sprintf("p50 %s (%s vs %s), p95 %s (%s vs %s)", durRatio(loading.p50(), rest.p50()), ms(loading.p50()), ms(rest.p50()),
			durRatio(loading.p95(), rest.p95()), ms(loading.p95()), ms(rest.p95())), met)
	return nil
}
