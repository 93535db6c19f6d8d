package main

import (
	"context"
	"fmt"
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
			args["line"], args["character"] = p.line, p.char
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
	return nil
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
