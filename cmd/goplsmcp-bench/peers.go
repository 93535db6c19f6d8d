package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	// count, if set, reads the number of items (references,
	// diagnostics) from an answer, to check that both say the same.
	count func(a answer, ours bool) (int, bool)
	unit  string
	// rescan marks the questions for which gopls mcp checks the
	// modification time of every file in the package's dependency closure
	// before it answers (its tools that take a file). Only those have the
	// ≤ 0.1 target on GOROOT/src; the others it answers from memory.
	rescan bool
	// informational rows are shown but not judged.
	informational bool
	// missing says why the question cannot be asked, if it cannot.
	missing string
	// vary, if set, gives the arguments of sample i (-1: the unmeasured
	// round) in place of ours and peer: a new search query each time.
	vary func(i int) (ours, peer map[string]any)
	// before, if set, runs before each side's call of sample i, unmeasured:
	// a change on disk that the call must see. restore undoes them.
	before  func(i int) error
	restore func() error
	// restored, with restore, is what the peer's answer to the question
	// still says while it has not seen the restore: gopls mcp hears of a
	// change on disk from its own file watcher, a moment after it, and the
	// next question must find the tree as it was.
	restored string
}

var (
	oursRefCount  = regexp.MustCompile(`(?m)^(\d+) references? to `)
	peerRefCount  = regexp.MustCompile(`The object has (\d+) references`)
	peerDiagEntry = regexp.MustCompile(`(?m)^\d+:\d+-\d+:\d+: \[`)
)

// refCount reads the number of references from an answer's text.
func refCount(a answer, ours bool) (int, bool) {
	text := a.text
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

// diagnosticCount reads the number of diagnostics from an answer: its
// structured content for goplsmcp, its text for gopls mcp.
func diagnosticCount(a answer, ours bool) (int, bool) {
	if ours {
		return diagCount(a.structured, "")
	}
	text := a.text
	if strings.TrimSpace(text) == "No diagnostics." {
		return 0, true
	}
	return len(peerDiagEntry.FindAllStringIndex(text, -1)), true
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
	diagURI, err := s.direct.open(ctx, ws.diagFile)
	if err != nil {
		return nil, err
	}
	refsFile := ws.refs.abs(ws)
	diagFile := []string{absPath(ws, ws.diagFile)}
	qs := []peerQuestion{
		{
			name: "references of " + ws.refs.symbol, tool: "go_symbol_references", n: n, rescan: true,
			count: refCount, unit: "references",
			// gopls mcp lists every reference and the declaration; so
			// does goplsmcp with these arguments.
			ours:   map[string]any{"file": refsFile, "symbol": ws.refs.symbol, "includeDeclaration": true, "limit": 1000},
			peer:   map[string]any{"file": refsFile, "symbol": ws.refs.symbol},
			direct: lspQuery(s.direct, "textDocument/references", references(refsURI, ws.refs.at, true)),
		},
		{
			// The same, with goplsmcp told the position instead of the
			// name: the difference is what resolving the name costs.
			name: "references of " + ws.refs.symbol + " (goplsmcp given the position)", tool: "go_symbol_references", n: n, rescan: true,
			count: refCount, unit: "references", informational: true,
			ours:   map[string]any{"file": refsFile, "line": ws.refs.at.line + 1, "column": ws.refs.at.char + 1, "includeDeclaration": true, "limit": 1000},
			peer:   map[string]any{"file": refsFile, "symbol": ws.refs.symbol},
			direct: lspQuery(s.direct, "textDocument/references", references(refsURI, ws.refs.at, true)),
		},
		{
			name: "diagnostics of " + ws.diagFile, tool: "go_diagnostics", n: n, rescan: true,
			count: diagnosticCount, unit: "diagnostics",
			ours: map[string]any{"files": diagFile},
			peer: map[string]any{"files": diagFile},
			direct: func(ctx context.Context) (time.Duration, error) {
				start := time.Now()
				_, err := s.direct.c.DiagnoseFile(ctx, diagURI)
				return time.Since(start), err
			},
		},
		{
			name: fmt.Sprintf("symbol search %q", ws.search), tool: "go_search", n: n,
			ours:   map[string]any{"query": ws.search, "limit": 100},
			peer:   map[string]any{"query": ws.search},
			direct: lspQuery(s.direct, "workspace/symbol", map[string]any{"query": ws.search}),
		},
		{
			name: "package API of " + ws.pkg, tool: "go_package_api", n: n,
			// goplsmcp lists up to 200 declarations by default; gopls
			// mcp lists them all.
			ours: map[string]any{"packagePaths": []string{ws.pkg}, "limit": 10000},
			peer: map[string]any{"packagePaths": []string{ws.pkg}},
		},
	}
	// The three answers once found trailing gopls mcp: a large file's
	// context, a search gopls has not answered yet, diagnostics right
	// after a file changed on disk.
	qs = append(qs, peerQuestion{
		name: "file context of " + ws.diagFile, tool: "go_file_context", n: n,
		// goplsmcp lists up to 100 declarations by default; gopls mcp
		// lists them all.
		ours: map[string]any{"file": diagFile[0], "limit": 10000},
		peer: map[string]any{"file": diagFile[0]},
	})
	if files, err := soakFiles(ws.root); err == nil {
		names := make([]string, 0, len(files))
		seen := map[string]bool{}
		for _, f := range files {
			if !seen[f.name] {
				seen[f.name] = true
				names = append(names, f.name)
			}
		}
		qs = append(qs, peerQuestion{
			name: "symbol search, a new query each call", tool: "go_search", n: min(n, len(names)-1),
			vary: func(i int) (map[string]any, map[string]any) {
				q := names[i+1]
				return map[string]any{"query": q, "limit": 100}, map[string]any{"query": q}
			},
		})
	}
	// GOROOT/src is used in place and never written, unless -goroot-copy
	// says the tree given is a copy.
	if changed := ws.changeFile(b.cfg.gorootCopy); changed != "" {
		file := absPath(ws, changed)
		orig, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		k := 0
		qs = append(qs, peerQuestion{
			name: "diagnostics of " + changed + " after a change on disk", tool: "go_diagnostics", n: n,
			count: diagnosticCount, unit: "diagnostics",
			ours: map[string]any{"files": []string{file}},
			peer: map[string]any{"files": []string{file}},
			// Each side's call comes right after a change: the file broken
			// by a name undefined, a new name each time, so that every
			// answer lists the same diagnostics.
			before: func(i int) error {
				k++
				return writeViaRename(file, fmt.Sprintf("%s\nfunc brokenByTheBench() int { return undefined%d }\n", orig, k))
			},
			restore:  func() error { return writeViaRename(file, string(orig)) },
			restored: "undefined: undefined",
		})
	}
	diagN := n
	if !ws.fixture {
		diagN = b.plan.peerGorootDiagN
	}
	if diagN > 0 {
		qs = append(qs, peerQuestion{
			name: "workspace diagnostics", tool: "go_diagnostics", n: diagN,
			count: diagnosticCount, unit: "diagnostics",
			ours: map[string]any{}, peer: map[string]any{},
		})
	}
	if ws.rename != nil {
		qs = append(qs, peerQuestion{
			name: fmt.Sprintf("rename %s → %s (3 packages)", ws.rename.symbol, ws.newName), tool: "go_rename_symbol", n: n, rescan: true,
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
		"The same question to goplsmcp and to `gopls mcp` (same gopls binary, both over stdio, started in the workspace root), interleaved; the direct LSP column is the bare request for reference. Bytes are the text the model reads (the result's text content); goplsmcp is asked for the same information gopls mcp gives (every reference, declaration included; up to 100 search results; every declaration of a package). Targets: latency ratio ≤ 1.0 on the fixture; on GOROOT/src ≤ 0.1 where gopls mcp rescans file modification times before answering (its tools that take a file: references, file diagnostics, rename), ≤ 1.0 where it answers from memory; bytes ratio ≤ 0.6 where the answers carry the same items.",
		"workspace", "question", "n", "goplsmcp p50", "gopls mcp p50", "latency ratio", "direct LSP p50", "goplsmcp bytes", "gopls mcp bytes", "bytes ratio", "answers")
	timeout := b.plan.callTimeout
	if !ws.fixture {
		timeout = b.plan.gorootCallTimeout
	}
	for _, q := range qs {
		if q.missing != "" {
			t.add(ws.name, q.name, "—", "—", "—", "—", "—", "—", "—", "—", "not measured: "+q.missing)
			if !q.informational {
				b.rep.unavailable(fmt.Sprintf("2. %s on %s", q.name, ws.name), q.missing)
			}
			continue
		}
		if b.cfg.questions != nil && !b.cfg.questions.MatchString(q.name) {
			continue
		}
		b.logf("  %s on %s (%d samples)", q.name, ws.name, q.n)
		var ours, peer, direct samples
		var lastOurs, lastPeer answer
		// One unmeasured round each: the first call may load packages.
		for i := -1; i < q.n; i++ {
			oursArgs, peerArgs := q.ours, q.peer
			if q.vary != nil {
				oursArgs, peerArgs = q.vary(i)
			}
			sides := []func() error{
				func() error {
					if q.before != nil {
						if err := q.before(i); err != nil {
							return err
						}
					}
					a, err := callWithin(ctx, timeout, s.ours, q.tool, oursArgs)
					lastOurs = a
					if i >= 0 {
						ours = append(ours, a.dur)
					}
					return err
				},
				func() error {
					if q.before != nil {
						if err := q.before(i); err != nil {
							return err
						}
					}
					a, err := callWithin(ctx, timeout, s.peer, q.tool, peerArgs)
					lastPeer = a
					if i >= 0 {
						peer = append(peer, a.dur)
					}
					return err
				},
			}
			if q.direct != nil && q.before == nil && q.vary == nil {
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
		if q.restore != nil {
			if err := q.restore(); err != nil {
				return err
			}
			if err := awaitRestored(ctx, timeout, s.peer, q); err != nil {
				return err
			}
		}
		b.saveAnswer("goplsmcp", ws.name, q.name, lastOurs.text)
		b.saveAnswer("gopls-mcp", ws.name, q.name, lastPeer.text)
		what := fmt.Sprintf("2. %s on %s", q.name, ws.name)
		if lastOurs.isError || lastPeer.isError {
			msg := fmt.Sprintf("error answer: goplsmcp %q; gopls mcp %q", truncate(lastOurs.text, 100), truncate(lastPeer.text, 100))
			t.add(ws.name, q.name, fmt.Sprint(q.n), ms(ours.p50()), ms(peer.p50()), "—", "—", "—", "—", "—", msg)
			if !q.informational {
				b.rep.judge(what+": a correct answer from both", msg, false)
			}
			continue
		}
		// Bytes are compared only when both answers list the same items.
		same := true
		agree := "—"
		if q.count != nil {
			on, ok1 := q.count(lastOurs, true)
			pn, ok2 := q.count(lastPeer, false)
			same = ok1 && ok2 && on == pn
			agree = fmt.Sprintf("%d vs %d %s", on, pn, q.unit)
			if !same {
				agree += " **differ**"
			}
			if !ws.fixture && q.unit == "references" && ok1 && !q.informational {
				b.expectGorootRefs = on
			}
		}
		dp50 := "—"
		if direct != nil {
			dp50 = ms(direct.p50())
		}
		bytesRatio := ratio(float64(len(lastOurs.text)), float64(len(lastPeer.text)))
		if !same {
			bytesRatio = "— (answers differ)"
		}
		t.add(ws.name, q.name, fmt.Sprint(q.n), ms(ours.p50()), ms(peer.p50()), ratio(float64(ours.p50()), float64(peer.p50())), dp50,
			kib(len(lastOurs.text)), kib(len(lastPeer.text)), bytesRatio, agree)
		if q.informational {
			continue
		}
		latTarget, why := 1.0, ""
		if !ws.fixture {
			if q.rescan {
				latTarget, why = 0.1, " (gopls mcp rescans)"
			} else {
				why = " (gopls mcp answers from memory)"
			}
		}
		lat := float64(ours.p50()) / float64(peer.p50())
		b.rep.judge(fmt.Sprintf("%s: latency ratio ≤ %g%s", what, latTarget, why),
			fmt.Sprintf("%s (%s vs %s)", ratio(float64(ours.p50()), float64(peer.p50())), ms(ours.p50()), ms(peer.p50())), lat <= latTarget)
		if same {
			size := float64(len(lastOurs.text)) / float64(len(lastPeer.text))
			b.rep.judge(what+": answer bytes ≤ 0.6 of gopls mcp's",
				fmt.Sprintf("%s (%d vs %d bytes)", bytesRatio, len(lastOurs.text), len(lastPeer.text)), size <= 0.6)
		} else {
			b.rep.unavailable(what+": answer bytes ≤ 0.6 of gopls mcp's", "the answers list different items ("+agree+"); sizes not comparable")
		}
	}
	return nil
}

// callWithin is a tool call bounded by timeout.
// awaitRestored asks the peer q's question until its answer no longer
// says q.restored, within timeout.
func awaitRestored(ctx context.Context, timeout time.Duration, peer *mcpServer, q peerQuestion) error {
	if q.restored == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		a, err := peer.call(ctx, q.tool, q.peer)
		if err == nil && !strings.Contains(a.text, q.restored) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: gopls mcp still answers about the change on disk after it was undone: %w", q.name, ctx.Err())
		case <-tick.C:
		}
	}
}

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

// writeViaRename replaces file with text through a new file and a rename,
// as editors save: a watcher sees one change, and the old inode (a hard
// link's other name) is never written.
func writeViaRename(file, text string) error {
	tmp := filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+".bench")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// changeFile is the file the harness may change on disk in ws, or "": the
// fixture's copy, or, in a copy of GOROOT (copy), encoding/csv/reader.go,
// the change table 2 measures.
func (ws *workspace) changeFile(copy bool) string {
	switch {
	case ws.fixture:
		return ws.refs.file
	case copy:
		return "encoding/csv/reader.go"
	}
	return ""
}
