package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A pos is a 0-based line and UTF-16 character, as LSP takes them;
// goplsmcp's tools take line+1 and char+1, the same on the ASCII lines
// the questions are on.
type pos struct{ line, char int }

// A workspace is a module the servers are started on, with the questions
// asked of it.
type workspace struct {
	name string
	root string
	// refs is the symbol whose references are compared with gopls mcp
	// and timed in the cold start.
	refs symbolAt
	// search is a go_search query; pkg an import path for go_package_api;
	// diagFile a file whose diagnostics are asked for.
	search   string
	pkg      string
	diagFile string
	// rename is the three-package rename, if the workspace has one.
	rename *symbolAt
	// newName is rename's new name.
	newName string
	// expectRefs is the number of references to refs, declaration
	// included, or 0 when it is learnt by measuring.
	expectRefs int
	fixture    bool
}

// symbolAt names a declaration both ways: file + symbol (the gopls mcp
// way) and file + position of the name (the direct LSP way).
type symbolAt struct {
	file   string // relative to the root
	symbol string
	at     pos
}

func (s symbolAt) abs(ws *workspace) string { return absPath(ws, s.file) }

// absPath makes rel, relative to the workspace root, absolute: gopls mcp
// takes only absolute paths.
func absPath(ws *workspace, rel string) string {
	return filepath.Join(ws.root, filepath.FromSlash(rel))
}

// fixtureWorkspace copies the bench fixture into a fresh directory named
// after tag, so that nothing a run does reaches the committed files.
func (b *bench) fixtureWorkspace(tag string) (*workspace, error) {
	root := filepath.Join(b.tmp, "fixture-"+tag)
	if err := os.CopyFS(root, os.DirFS(b.cfg.fixture)); err != nil {
		return nil, fmt.Errorf("copying the fixture %s: %w", b.cfg.fixture, err)
	}
	ws := &workspace{name: "fixture", root: root, search: "Amount", pkg: fixtureModule + "/core", diagFile: "broken/broken.go", newName: "ParseStockKeepingUnit", expectRefs: wrapUses + 1, fixture: true}
	var err error
	if ws.refs, err = findSymbol(root, "core/errors.go", "Wrap", "func Wrap(", 5); err != nil {
		return nil, err
	}
	rename, err := findSymbol(root, "core/sku.go", "ParseSKU", "func ParseSKU(", 5)
	if err != nil {
		return nil, err
	}
	ws.rename = &rename
	return ws, nil
}

// gorootWorkspace is the standard library's source tree, used in place:
// nothing the harness does writes to it.
func gorootWorkspace(dir string) *workspace {
	ws := &workspace{name: "GOROOT/src", root: dir, search: "Handler", pkg: "net/http", diagFile: "net/http/server.go"}
	ws.refs, _ = findSymbol(dir, "net/http/server.go", "Handler", "type Handler interface", 5)
	return ws
}

// findSymbol locates the first occurrence of needle in file and returns
// the position offset bytes into it. The fixture and the Go tree are ASCII
// where this looks, so bytes and UTF-16 units agree.
func findSymbol(root, file, symbol, needle string, offset int) (symbolAt, error) {
	p, err := find(root, file, needle, offset)
	return symbolAt{file: file, symbol: symbol, at: p}, err
}

func find(root, file, needle string, offset int) (pos, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return pos{}, err
	}
	i := strings.Index(string(data), needle)
	if i < 0 {
		return pos{}, fmt.Errorf("%s: %q not found", file, needle)
	}
	i += offset
	line := strings.Count(string(data[:i]), "\n")
	char := i - (strings.LastIndexByte(string(data[:i]), '\n') + 1)
	return pos{line, char}, nil
}

// servers are the three sides of the comparison, warm on one workspace.
type servers struct {
	ours   *mcpServer // goplsmcp
	peer   *mcpServer // gopls mcp
	direct *directClient
	// disk is a goplsmcp on a copy of the workspace of its own, for the
	// edit loop that writes files; nil when that is not measured.
	disk *workspace
	edit *mcpServer
	// cross is the direct client of the cross-package edit loop, with
	// gopls diagnosing at once after a change (noDiagnosticsDelay), and
	// saved another on a copy of its own (savedDisk), for the edits
	// written to disk; nil when that is not measured. On GOROOT/src cross
	// is direct, and there is no saved.
	cross     *directClient
	savedDisk *workspace
	saved     *directClient
	// crossOurs is a goplsmcp of the cross-package loop's own, on the
	// workspace, which no other question has opened files in: gopls
	// analyses every package with an open file when it diagnoses the
	// workspace, so a goplsmcp that earlier sections had open files in
	// everywhere would measure them (it is shown too, for context). Nil
	// on GOROOT/src, where the loop runs before the questions that open
	// files, and both sides have opened the same ones.
	crossOurs *mcpServer
	// crossOpen is a direct client like cross that also holds the broken
	// importers open, as goplsmcp's gopls does once calls have named
	// them: gopls then analyses their packages at every diagnosis; shown
	// for context, on the fixture.
	crossOpen *directClient
}

// startAll starts goplsmcp, gopls mcp and the direct client on ws, waits
// for each to answer, then for all three gopls processes to go quiet.
func (b *bench) startAll(ctx context.Context, ws *workspace, withEdit bool, settleMax time.Duration) (*servers, error) {
	b.logf("starting goplsmcp, gopls mcp and a direct LSP client on %s", ws.name)
	// The three start at once: they are independent, and each spends
	// most of its start waiting for its gopls.
	s := &servers{}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	wg.Go(func() { s.ours, errs[0] = b.startOurs(ctx, ws.root, "goplsmcp") })
	wg.Go(func() { s.peer, errs[1] = b.startPeer(ctx, ws.root) })
	// On GOROOT/src the direct client of table 2 is the cross-package
	// edit loop's too, rather than a fourth gopls loading the tree: its
	// questions change nothing, so diagnosing at once after a change
	// does not touch them.
	var directSettings map[string]any
	if withEdit && !ws.fixture {
		directSettings = noDiagnosticsDelay
	}
	wg.Go(func() { s.direct, errs[2] = startDirect(ctx, b.cfg.gopls, ws.root, b.envFor("direct"), directSettings) })
	if withEdit && ws.fixture {
		wg.Go(func() {
			if s.disk, errs[3] = b.fixtureWorkspace("edit"); errs[3] != nil {
				return
			}
			s.edit, errs[3] = b.startOurs(ctx, s.disk.root, "goplsmcp-edit")
		})
		wg.Go(func() {
			s.cross, errs[4] = startDirect(ctx, b.cfg.gopls, ws.root, b.envFor("direct-cross"), noDiagnosticsDelay)
		})
		wg.Go(func() { s.crossOurs, errs[6] = b.startOurs(ctx, ws.root, "goplsmcp-cross") })
		if b.plan.crossContextN > 0 {
			wg.Go(func() {
				s.crossOpen, errs[7] = startDirect(ctx, b.cfg.gopls, ws.root, b.envFor("direct-open"), noDiagnosticsDelay)
			})
		}
		wg.Go(func() {
			if s.savedDisk, errs[5] = b.fixtureWorkspace("saved"); errs[5] != nil {
				return
			}
			s.saved, errs[5] = startDirect(ctx, b.cfg.gopls, s.savedDisk.root, b.envFor("direct-saved"), noDiagnosticsDelay)
		})
	}
	wg.Wait()
	if withEdit && !ws.fixture {
		s.cross = s.direct
	}
	if err := errors.Join(errs...); err != nil {
		s.close()
		return nil, err
	}
	// All three load the workspace; the figures mean something only once
	// gopls has finished, so wait for it rather than for a fixed time.
	waited, quiet := settle(ctx, s.pids(), settleMax)
	if !quiet {
		b.logf("warning: gopls still busy after %s on %s; measuring anyway", secs(waited), ws.name)
	} else {
		b.logf("quiet after %s", secs(waited))
	}
	return s, nil
}

// pids are the processes whose CPU use says whether gopls is busy: the
// servers (with their gopls children) and the direct client's gopls.
func (s *servers) pids() []int {
	pids := []int{s.ours.pid(), s.peer.pid(), s.direct.c.PID()}
	for _, m := range []*mcpServer{s.edit, s.crossOurs} {
		if m != nil {
			pids = append(pids, m.pid())
		}
	}
	for _, d := range []*directClient{s.cross, s.saved, s.crossOpen} {
		if d != nil && d != s.direct {
			pids = append(pids, d.c.PID())
		}
	}
	return pids
}

func (s *servers) close() {
	if s.ours != nil {
		s.ours.close()
	}
	if s.peer != nil {
		s.peer.close()
	}
	if s.direct != nil {
		s.direct.close()
	}
	if s.edit != nil {
		s.edit.close()
	}
	if s.crossOurs != nil {
		s.crossOurs.close()
	}
	if s.cross != nil && s.cross != s.direct {
		s.cross.close()
	}
	if s.saved != nil {
		s.saved.close()
	}
	if s.crossOpen != nil {
		s.crossOpen.close()
	}
}

// oursArgv and peerArgv are how the two servers are started; both run in
// the workspace root, which is gopls mcp's workspace. goplsmcp runs with
// a gopls of its own (--share off), as the tables measure it; the sharing
// table starts its own sessions (share.go).
func (b *bench) oursArgv(root string) []string {
	return []string{b.cfg.goplsmcp, "--root", root, "--gopls", b.cfg.gopls, "--log-level", "warn", "--share", "off"}
}

func (b *bench) peerArgv() []string { return []string{b.cfg.gopls, "mcp"} }

func (b *bench) startOurs(ctx context.Context, root, side string) (*mcpServer, error) {
	return b.startMCP(ctx, "goplsmcp", b.oursArgv(root), root, side)
}

func (b *bench) startPeer(ctx context.Context, root string) (*mcpServer, error) {
	return b.startMCP(ctx, "gopls mcp", b.peerArgv(), root, "gopls-mcp")
}

// startMCP starts an MCP server for side on the workspace at root and
// initializes it.
func (b *bench) startMCP(ctx context.Context, name string, argv []string, root, side string) (*mcpServer, error) {
	s, err := startServer(name, argv, root, b.envFor(side))
	if err != nil {
		return nil, err
	}
	s.timeout = b.callTimeout(root)
	if err := s.initialize(ctx); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// callTimeout bounds one call on the workspace at root.
func (b *bench) callTimeout(root string) time.Duration {
	if b.cfg.goroot != "" && root == b.cfg.goroot {
		return b.plan.gorootCallTimeout
	}
	return b.plan.callTimeout
}
