package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A sourceDecl is a declaration go_source is asked for: by file and
// symbol, as an agent names it.
type sourceDecl struct {
	file, symbol string
}

// gorootDecls are ten declarations of GOROOT/src, functions, methods and
// types, in files from 22 KiB to 128 KiB.
var gorootDecls = []sourceDecl{
	{"net/http/server.go", "(*Server).Serve"},
	{"net/http/server.go", "Server"},
	{"fmt/print.go", "Fprintf"},
	{"strings/strings.go", "Split"},
	{"encoding/json/decode.go", "Unmarshal"},
	{"go/ast/ast.go", "File"},
	{"os/file.go", "(*File).Write"},
	{"bufio/bufio.go", "(*Reader).ReadString"},
	{"io/io.go", "Reader"},
	{"context/context.go", "WithCancel"},
}

// fixtureDecls are the fixture's, for the quick and smoke modes.
var fixtureDecls = []sourceDecl{
	{"core/errors.go", "Wrap"},
	{"core/amount.go", "Amount"},
	{"core/amount.go", "Amount.Add"},
	{"core/store.go", "MemStore"},
	{"core/store.go", "(*MemStore).Get"},
	{"core/sku.go", "ParseSKU"},
}

// source measures go_source and go_package_graph (table 8) with a
// goplsmcp of its own on ws: what a model reads for a declaration's code
// (go_source's answer) against what it reads without it (the whole file),
// go_source's latency against go_definition's for the same symbols (a
// definition is one line; the source, the declaration's lines), and
// go_package_graph's for a package with many importers.
func (b *bench) source(ctx context.Context, ws *workspace) error {
	decls, graphPkg := fixtureDecls, fixtureModule+"/core"
	if !ws.fixture {
		decls, graphPkg = gorootDecls, "net/http"
	}
	t := b.table(8, "Declaration source and package graph",
		fmt.Sprintf("On %s, a goplsmcp of its own, warm. For each declaration: the size of its file (what an agent reads to see the declaration without go_source), go_source's text and whole result (structured content included), and the median latency of go_source and of go_definition for the same file and symbol, over %d calls each, alternating. Then go_package_graph's latency for %s.", ws.name, b.plan.peerGorootN, graphPkg),
		"declaration", "file", "go_source text", "whole result", "text / file", "go_source p50", "go_definition p50")
	ours, err := b.startOurs(ctx, ws.root, "goplsmcp-source")
	if err != nil {
		return err
	}
	defer ours.close()
	if waited, quiet := settle(ctx, []int{ours.pid()}, b.settleMaxFor(ws)); !quiet {
		b.logf("warning: gopls still busy after %s on %s; measuring anyway", secs(waited), ws.name)
	}
	if !ours.has("go_source") || !ours.has("go_package_graph") {
		t.note("not measured: this goplsmcp has no go_source or go_package_graph")
		return nil
	}
	n := b.plan.peerGorootN
	var fileTotal, textTotal, wholeTotal int
	var allSource, allDef samples
	for _, d := range decls {
		args := map[string]any{"file": absPath(ws, d.file), "symbol": d.symbol}
		info, err := os.Stat(filepath.Join(ws.root, filepath.FromSlash(d.file)))
		if err != nil {
			return err
		}
		first, err := ours.mustCall(ctx, "go_source", args)
		if err != nil {
			return err
		}
		if _, err := ours.mustCall(ctx, "go_definition", args); err != nil {
			return err
		}
		b.saveAnswer("goplsmcp", ws.name, "go_source "+d.symbol, first.text)
		var src, def samples
		for range n {
			a, err := ours.mustCall(ctx, "go_source", args)
			if err != nil {
				return err
			}
			src = append(src, a.dur)
			if a, err = ours.mustCall(ctx, "go_definition", args); err != nil {
				return err
			}
			def = append(def, a.dur)
		}
		allSource, allDef = append(allSource, src...), append(allDef, def...)
		whole := len(first.text) + len(first.structured)
		fileTotal += int(info.Size())
		textTotal += len(first.text)
		wholeTotal += whole
		lines := strings.Count(first.text, "\n")
		t.add(fmt.Sprintf("`%s` (%s, %d lines)", d.symbol, d.file, lines), kib(int(info.Size())), kib(len(first.text)), kib(whole),
			ratio(float64(len(first.text)), float64(info.Size())), ms(src.p50()), ms(def.p50()))
	}
	t.add(fmt.Sprintf("all %d", len(decls)), kib(fileTotal), kib(textTotal), kib(wholeTotal),
		ratio(float64(textTotal), float64(fileTotal)), ms(allSource.p50()), ms(allDef.p50()))
	b.rep.judge(fmt.Sprintf("8. go_source reads less than the files (%d declarations of %s)", len(decls), ws.name),
		fmt.Sprintf("%s of text against %s of files (%s)", kib(textTotal), kib(fileTotal), ratio(float64(textTotal), float64(fileTotal))), textTotal < fileTotal)

	for _, depth := range []int{1, 2} {
		args := map[string]any{"packagePaths": []string{graphPkg}, "depth": depth}
		first, err := ours.mustCall(ctx, "go_package_graph", args)
		if err != nil {
			return err
		}
		b.saveAnswer("goplsmcp", ws.name, fmt.Sprintf("go_package_graph %s depth %d", graphPkg, depth), first.text)
		var graph samples
		for range n {
			a, err := ours.mustCall(ctx, "go_package_graph", args)
			if err != nil {
				return err
			}
			graph = append(graph, a.dur)
		}
		t.add(fmt.Sprintf("go_package_graph `%s`, depth %d (%d lines)", graphPkg, depth, strings.Count(first.text, "\n")+1), "—",
			kib(len(first.text)), kib(len(first.text)+len(first.structured)), "—", fmt.Sprintf("%s (p95 %s)", ms(graph.p50()), ms(graph.p95())), "—")
	}
	return nil
}

// settleMaxFor is how long gopls may take to go quiet on ws.
func (b *bench) settleMaxFor(ws *workspace) time.Duration {
	if ws.fixture {
		return b.plan.settleMax
	}
	return b.plan.settleGorootMax
}
