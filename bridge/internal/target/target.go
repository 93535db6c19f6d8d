package target

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/bridge/internal/gocmd"
	"github.com/goplsmcp/goplsmcp/bridge/internal/memo"
	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"go.lsp.dev/protocol"
)

// At is how a tool call names a place in the code: the code (a file, an
// overlay, a snippet or an open buffer; see [buffer.Doc]) and either a position
// (line and column as go build and go vet print them: both 1-based, the
// column in bytes; optionally anchored by the identifier expected there)
// or a symbol.
type At struct {
	buffer.Doc
	Line   *int   `json:"line,omitempty" jsonschema:"1-based"`
	Column *int   `json:"column,omitempty" jsonschema:"1-based, in bytes"`
	Name   string `json:"name,omitempty" jsonschema:"identifier expected there"`
	Symbol string `json:"symbol,omitempty" jsonschema:"or: Name, pkg.Name, Type.Method"`
	// LSP is a position as LSP counts it (0-based line and UTF-16
	// character), in place of Line and Column, for gopls mcp's tools
	// that take an LSP location; never read from a call's arguments.
	LSP *protocol.Position `json:"-"`
}

// A Target is a resolved place: a file as gopls holds it and a position,
// held as gopls takes it (0-based line, UTF-16 character); Pos is the
// same place as answers show it.
// It keeps gopls holding the buffers it was resolved in until released,
// so that the answer matches them; tools release it when they have their
// answer (and, as a backstop, it is released when the call's context
// ends). A Target made as a literal, only to ask gopls about a place in a
// source its caller holds, holds nothing and need not be released.
type Target struct {
	Src       *buffer.Source
	Line      int
	Character int
	// Note says how the position was found when it is not the one given,
	// e.g. after snapping to name.
	Note string
	// Buffer is the uri of the snippet or overlay the call named, for a
	// later call to name it again; empty for a file as on disk.
	Buffer string

	mu   sync.Mutex
	held []*buffer.Source
	stop func() bool
}

// newTarget returns an empty target released when ctx ends.
func newTarget(ctx context.Context) *Target {
	t := &Target{}
	// Under the lock: with ctx already done, Release runs at once, on a
	// goroutine of its own.
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stop = context.AfterFunc(ctx, t.Release)
	return t
}

// Keep adds a source to those released with t.
func (t *Target) Keep(s *buffer.Source) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held = append(t.held, s)
}

// Release lets gopls change the buffers t was resolved in.
func (t *Target) Release() {
	t.mu.Lock()
	held, stop := t.held, t.stop
	t.held = nil
	t.mu.Unlock()
	for _, s := range held {
		s.Release()
	}
	if stop != nil {
		stop()
	}
}

// A Resolver turns a call's At into a Target, asking gopls where a symbol
// is declared. bridge makes one and shares it among calls.
type Resolver struct {
	// Buffers opens the sources targets are in.
	Buffers *buffer.Set
	// Client is the gopls asked where symbols and imports are.
	Client *lspclient.Client
	// Reads is the read gate: its root is where declarations are
	// preferred, and it shows paths in messages.
	Reads *place.Gate
	// Build says which files of a directory are in gopls's build.
	Build *gocmd.Build
	// Trees keeps the syntax trees symbols were resolved in.
	Trees *memo.Trees
	// Withheld, if set, is the sentence that a declaration in the file
	// at path, which the gate does not show, is withheld, and why.
	Withheld func(path string) string
}

// Resolve turns an At into a target for caller, or says which fields to
// send. The caller must release the target.
func (res *Resolver) Resolve(ctx context.Context, caller buffer.Caller, at At) (*Target, error) {
	if at.LSP != nil {
		at.Line, at.Column = new(int), new(int) // present, and not read
	}
	hasPos := at.Line != nil || at.Column != nil
	switch {
	case hasPos && at.Symbol != "":
		return nil, errors.New("pass either line and column, or symbol, not both")
	case !hasPos && at.Symbol == "" && !at.Given():
		return nil, errors.New("say where: pass file with line and column (1-based, as go vet prints them), or symbol (with file for its scope, or alone to search the workspace)")
	case !hasPos && at.Symbol == "":
		return nil, errors.New("pass line and column (1-based, as go vet prints them), or symbol, to say where in the file")
	case hasPos && (at.Line == nil || at.Column == nil):
		return nil, errors.New("line and column go together; pass both (1-based, as go vet prints them)")
	case hasPos && !at.Given():
		return nil, errors.New("line and column need file (or uri, or text) to say which file they are in")
	case at.Name != "" && !hasPos:
		return nil, errors.New("name anchors line and column; with symbol, leave it out")
	}
	t := newTarget(ctx)
	ok := false
	defer func() {
		if !ok {
			t.Release()
		}
	}()
	if at.Symbol != "" && !at.Given() {
		res.Client.Refresh()
		if err := res.resolveSymbol(ctx, caller, t, nil, at.Symbol); err != nil {
			return nil, err
		}
		ok = true
		return t, nil
	}
	src, err := res.Buffers.OpenDoc(ctx, caller, at.Doc)
	if err != nil {
		return nil, err
	}
	t.Keep(src)
	t.Buffer = src.BufferURI()
	if at.Symbol != "" {
		if err := res.resolveSymbol(ctx, caller, t, src, at.Symbol); err != nil {
			return nil, err
		}
		ok = true
		return t, nil
	}
	pos := place.Pos{Line: *at.Line, Column: *at.Column}
	t.Src = src
	if at.LSP != nil {
		t.Line, t.Character = int(at.LSP.Line), int(at.LSP.Character)
		if err := src.CheckPosition(t.Line, t.Character); err != nil {
			return nil, err
		}
	} else if at.Name != "" {
		if err := t.snap(pos, at.Name); err != nil {
			return nil, err
		}
	} else if err := pos.Check(src.Lines); err != nil {
		return nil, err
	} else {
		lsp := pos.LSP(src.Line(pos.Line - 1))
		t.Line, t.Character = int(lsp.Line), int(lsp.Character)
	}
	ok = true
	return t, nil
}

// snap puts t on the identifier name: the one at pos if it is there, else
// the nearest occurrence on pos's line, then the lines above and below, up
// to two lines away. Models often miss lines by one; this absorbs it.
func (t *Target) snap(pos place.Pos, name string) error {
	if pos.Line < 1 || pos.Column < 1 {
		return place.ErrNotPositive
	}
	// Compared as gopls counts: UTF-16 columns, 0-based lines.
	lsp := pos.LSP(t.Src.Line(pos.Line - 1))
	t.Line, t.Character = int(lsp.Line), int(lsp.Character)
	found := false
	var bestLine, bestCol, bestDL, bestDC int
	for l := t.Line - 2; l <= t.Line+2; l++ {
		for _, col := range place.IdentColumns(t.Src.Line(l), name) {
			dl, dc := abs(l-t.Line), abs(col-t.Character)
			if dl == 0 && t.Character >= col && t.Character <= col+place.UTF16Len(name) {
				dc = 0
			}
			if !found || dl < bestDL || (dl == bestDL && dc < bestDC) {
				found, bestLine, bestCol, bestDL, bestDC = true, l, col, dl, dc
			}
		}
	}
	if !found {
		return fmt.Errorf("%s is not on line %d or the two lines either side of it; check the line (1-based, as go vet prints it) or pass symbol instead", render.Quote(name), pos.Line)
	}
	t.Line, t.Character = bestLine, bestCol
	if bestDL != 0 || bestDC != 0 {
		t.Note = fmt.Sprintf("position moved from %s to %s, where %s is", pos, t.Pos(), render.Clip(name))
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Pos is t's position as answers show it: 1-based line, byte column.
func (t *Target) Pos() place.Pos {
	return place.FromLSP(t.Src.Line(t.Line), protocol.Position{Line: uint32(t.Line), Character: uint32(t.Character)})
}

// Position is the LSP position of t, as the params of a request about it.
func (t *Target) Position() map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": t.Src.URI},
		"position":     map[string]any{"line": t.Line, "character": t.Character},
	}
}
