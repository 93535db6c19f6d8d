package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// A peerQuestion is one question both goplsmcp and gopls mcp answer, with
// the arguments that make the two answers carry the same information.
type peerQuestion struct {
	name       string
	tool       string
	ours, peer map[string]any
	// direct, if set, is the bare LSP request, for reference.
	direct func(ctx context.Context) (time.Duration, error)
	n      int
	// refs marks a references question, whose counts are compared.
	refs bool
	// missing says why the question cannot be asked, if it cannot.
	missing string
}

var (
	oursRefCount = regexp.MustCompile(`(?m)^(\d+) references? to `)
	peerRefCount = regexp.MustCompile(`The object has (\d+) references`)
)

// refCount reads the number of references from an answer's text.
func refCount(text string, ours bool) (int, bool) {
	re := peerRefCount
	if ours {
		re = oursRefCount
	}
	m := re.FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

func (b *bench) peerQuestions(ctx context.Context, ws *workspace, s *servers) ([]peerQuestion, error) {
	n := b.plan.peerN
	if !ws.fixture {
		n = b.plan.peerGorootN
	}
	refsURI, err := s.direct.open(ctx, ws.refs.file)
	if err != nil {
		return nil, err
	}
	qs := []peerQuestion{
		{
			name: fmt.Sprintf("references of %s", ws.refs.symbol), tool: "go_symbol_references", n: n, refs: true,
			// gopls mcp lists every reference and the declaration; so
			// does goplsmcp with these arguments.
			ours:   map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol, "includeDeclaration": true, "limit": 1000},
			peer:   map[string]any{"file": ws.refs.abs(ws), "symbol": ws.refs.symbol},
			direct: lspQuery(s.direct, "textDocument/references", references(refsURI, ws.refs.at, true)),
		},
		{
			name: fmt.Sprintf("symbol search %q", ws.search), tool: "go_search", n: n,
			ours:   map[string]any{"query": ws.search, "limit": 100},
			peer:   map[string]any{"query": ws.search},
			direct: lspQuery(s.direct, "workspace/symbol", map[string]any{"query": ws.search}),
		},
		{
			name: "package API of " + ws.pkg, tool: "go_package_api", n: n,
			ours: map[string]any{"packagePaths": []string{ws.pkg}},
			peer: map[string]any{"packagePaths": []string{ws.pkg}},
		},
	}
	diagN := n
	if !ws.fixture {
		diagN = b.plan.peerGorootDiagN
	}
	if diagN > 0 {
		qs = append(qs, peerQuestion{
			name: "workspace diagnostics", tool: "go_diagnostics", n: diagN,
			ours: map[string]any{}, peer: map[string]any{},
		})
	}
	if ws.rename != nil {
		qs = append(qs, peerQuestion{
			name: fmt.Sprintf("rename %s → %s (3 packages)", ws.rename.symbol, ws.newName), tool: "go_rename_symbol", n: n,
			ours: map[string]any{"file": ws.rename.abs(ws), "symbol": ws.rename.symbol, "new_name": ws.newName},
			peer: map[string]any{"file": ws.rename.abs(ws), "symbol": ws.rename.symbol, "new_name": ws.newName},
		})
	}
	for i, q := range qs {
		switch {
		case !s.ours.has(q.tool):
			qs[i].missing = "goplsmcp has no " + q.tool + " yet"
		case !s.peer.has(q.tool):
			qs[i].missing = "gopls mcp has no " + q.tool
		}
	}
	return qs, nil
}

// peers compares goplsmcp with gopls mcp on the questions both answer,
// with the direct client's time for the bare request alongside.
func (b *bench) peers(ctx context.Context, ws *workspace, s *servers) error {
	qs, err := b.peerQuestions(ctx, ws, s)
	if err != nil {
		return err
	}
	t := b.table(2, "Against gopls mcp",
		"The same question to goplsmcp and to `gopls mcp` (same gopls binary, both over stdio, started in the workspace root), interleaved; the direct LSP column is the bare request for reference. Bytes are the text the model reads (the result's text content); goplsmcp is asked for the same information gopls mcp gives (every reference, declaration included; up to 100 search results). Targets: latency ratio ≤ 1.0 on the fixture and ≤ 0.1 on GOROOT/src; bytes ratio ≤ 0.6.",
		"workspace", "question", "n", "goplsmcp p50", "gopls mcp p50", "latency ratio", "direct LSP p50", "goplsmcp bytes", "gopls mcp bytes", "bytes ratio", "answers agree")
	timeout := b.plan.callTimeout
	if !ws.fixture {
		timeout = b.plan.gorootCallTimeout
	}
	for _, q := range qs {
		if q.missing != "" {
			t.add(ws.name, q.name, "—", "—", "—", "—", "—", "—", "—", "—", "—", "not measured: "+q.missing)
			b.rep.unavailable(fmt.Sprintf("2. %s on %s", q.name, ws.name), q.missing)
			continue
		}
		b.logf("  %s on %s (%d samples)", q.name, ws.name, q.n)
		var ours, peer, direct samples
		var lastOurs, lastPeer answer
		// One unmeasured round each: the first call may load packages.
		for i := -1; i < q.n; i++ {
			sides := []func() error{
				func() error {
					a, err := callWithin(ctx, timeout, s.ours, q.tool, q.ours)
					lastOurs = a
					if i >= 0 {
						ours = append(ours, a.dur)
					}
					return err
				},
				func() error {
					a, err := callWithin(ctx, timeout, s.peer, q.tool, q.peer)
					lastPeer = a
					if i >= 0 {
						peer = append(peer, a.dur)
					}
					return err
				},
			}
			if q.direct != nil {
				sides = append(sides, func() error {
					dctx, cancel := context.WithTimeout(ctx, timeout)
					defer cancel()
					d, err := q.direct(dctx)
					if i >= 0 {
						direct = append(direct, d)
					}
					return err
				})
			}
			for k := range sides {
				// Rotate who goes first, so that neither always
				// follows the other.
				if err := sides[(k+i+1)%len(sides)](); err != nil {
					return fmt.Errorf("%s: %w", q.name, err)
				}
			}
		}
		b.saveAnswer("goplsmcp", ws.name, q.name, lastOurs.text)
		b.saveAnswer("gopls-mcp", ws.name, q.name, lastPeer.text)
		agree := "—"
		if q.refs {
			on, ok1 := refCount(lastOurs.text, true)
			pn, ok2 := refCount(lastPeer.text, false)
			agree = fmt.Sprintf("%d vs %d references", on, pn)
			if !ok1 || !ok2 || on != pn {
				agree += " **differ**"
			}
			if !ws.fixture && ok1 {
				b.expectGorootRefs = on
			}
		}
		if lastOurs.isError || lastPeer.isError {
			msg := fmt.Sprintf("error answer: goplsmcp %q; gopls mcp %q", truncate(lastOurs.text, 100), truncate(lastPeer.text, 100))
			t.add(ws.name, q.name, fmt.Sprint(q.n), ms(ours.p50()), ms(peer.p50()), "—", "—", "—", "—", "—", "—", msg)
			b.rep.judge(fmt.Sprintf("2. %s on %s: a correct answer from both", q.name, ws.name), msg, false)
			continue
		}
		dp50 := "—"
		if direct != nil {
			dp50 = ms(direct.p50())
		}
		lat := float64(ours.p50()) / float64(peer.p50())
		size := float64(len(lastOurs.text)) / float64(len(lastPeer.text))
		t.add(ws.name, q.name, fmt.Sprint(q.n), ms(ours.p50()), ms(peer.p50()), ratio(float64(ours.p50()), float64(peer.p50())), dp50,
			kib(len(lastOurs.text)), kib(len(lastPeer.text)), ratio(float64(len(lastOurs.text)), float64(len(lastPeer.text))), agree)
		latTarget := 1.0
		if !ws.fixture {
			latTarget = 0.1
		}
		b.rep.judge(fmt.Sprintf("2. %s on %s: latency ratio ≤ %g", q.name, ws.name, latTarget),
			fmt.Sprintf("%s (%s vs %s)", ratio(float64(ours.p50()), float64(peer.p50())), ms(ours.p50()), ms(peer.p50())), lat <= latTarget)
		b.rep.judge(fmt.Sprintf("2. %s on %s: answer bytes ≤ 0.6 of gopls mcp's", q.name, ws.name),
			fmt.Sprintf("%s (%d vs %d bytes)", ratio(float64(len(lastOurs.text)), float64(len(lastPeer.text))), len(lastOurs.text), len(lastPeer.text)), size <= 0.6)
	}
	return nil
}

// callWithin is a tool call bounded by timeout.
func callWithin(ctx context.Context, timeout time.Duration, s *mcpServer, tool string, args map[string]any) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return s.call(ctx, tool, args)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
