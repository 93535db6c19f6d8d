package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
)

// At is how a tool call names a place in the code: the code (a file, an
// overlay, a snippet or an open buffer; see [Doc]) and either a position
// (0-based line and UTF-16 character, optionally anchored by the
// identifier expected there) or a symbol.
type At struct {
	Doc
	Line      *int   `json:"line,omitempty" jsonschema:"0-based"`
	Character *int   `json:"character,omitempty" jsonschema:"0-based, UTF-16"`
	Name      string `json:"name,omitempty" jsonschema:"identifier expected there"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"or: Name, pkg.Name, Type.Method"`
}

// A target is a resolved place: a file as gopls holds it and a position.
// It keeps gopls holding the buffers it was resolved in until released,
// so that the answer matches them; tools release it when they have their
// answer (and, as a backstop, it is released when the call's context
// ends).
type target struct {
	src       *buffer.Source
	line      int
	character int
	// note says how the position was found when it is not the one given,
	// e.g. after snapping to name.
	note string
	// buffer is the uri of the snippet or overlay the call named, for a
	// later call to name it again; empty for a file as on disk.
	buffer string

	mu   sync.Mutex
	held []*buffer.Source
	stop func() bool
}

func newTarget(ctx context.Context) *target {
	t := &target{}
	// Under the lock: with ctx already done, release runs at once, on a
	// goroutine of its own.
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stop = context.AfterFunc(ctx, t.release)
	return t
}

// keep adds a source to those released with t.
func (t *target) keep(s *buffer.Source) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held = append(t.held, s)
}

// release lets gopls change the buffers t was resolved in.
func (t *target) release() {
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

// resolve turns an At into a target, or says which fields to send. The
// caller must release the target.
func (b *Bridge) resolve(ctx context.Context, at At) (*target, error) {
	hasPos := at.Line != nil || at.Character != nil
	switch {
	case hasPos && at.Symbol != "":
		return nil, errors.New("pass either line and character, or symbol, not both")
	case !hasPos && at.Symbol == "" && !at.Given():
		return nil, errors.New("say where: pass file with line and character (0-based), or symbol (with file for its scope, or alone to search the workspace)")
	case !hasPos && at.Symbol == "":
		return nil, errors.New("pass line and character (0-based), or symbol, to say where in the file")
	case hasPos && (at.Line == nil || at.Character == nil):
		return nil, errors.New("line and character go together; pass both (0-based)")
	case hasPos && !at.Given():
		return nil, errors.New("line and character need file (or uri, or text) to say which file they are in")
	case at.Name != "" && !hasPos:
		return nil, errors.New("name anchors line and character; with symbol, leave it out")
	}
	t := newTarget(ctx)
	ok := false
	defer func() {
		if !ok {
			t.release()
		}
	}()
	if at.Symbol != "" && !at.Given() {
		b.client.Refresh()
		if err := b.resolveSymbol(ctx, t, nil, at.Symbol); err != nil {
			return nil, err
		}
		ok = true
		return t, nil
	}
	src, err := b.buffers.OpenDoc(ctx, b.caller(ctx), at.Doc)
	if err != nil {
		return nil, err
	}
	t.keep(src)
	t.buffer = src.BufferURI()
	if at.Symbol != "" {
		if err := b.resolveSymbol(ctx, t, src, at.Symbol); err != nil {
			return nil, err
		}
		ok = true
		return t, nil
	}
	t.src, t.line, t.character = src, *at.Line, *at.Character
	if at.Name != "" {
		if err := t.snap(at.Name); err != nil {
			return nil, err
		}
	} else if err := src.CheckPosition(t.line, t.character); err != nil {
		return nil, err
	}
	ok = true
	return t, nil
}

// snap moves t onto the identifier name: the one at t if it is there, else
// the nearest occurrence on t's line, then the lines above and below, up
// to two lines away. Models often miss lines by one; this absorbs it.
func (t *target) snap(name string) error {
	if t.line < 0 || t.character < 0 {
		return errors.New("line and character are 0-based and must not be negative")
	}
	found := false
	var bestLine, bestCol, bestDL, bestDC int
	for l := t.line - 2; l <= t.line+2; l++ {
		for _, col := range iplace.IdentColumns(t.src.Line(l), name) {
			dl, dc := abs(l-t.line), abs(col-t.character)
			if dl == 0 && t.character >= col && t.character <= col+iplace.UTF16Len(name) {
				dc = 0
			}
			if !found || dl < bestDL || (dl == bestDL && dc < bestDC) {
				found, bestLine, bestCol, bestDL, bestDC = true, l, col, dl, dc
			}
		}
	}
	if !found {
		return fmt.Errorf("%s is not on line %d or the two lines either side of it; check the line (0-based) or pass symbol instead", render.Quote(name), t.line)
	}
	if bestDL != 0 || bestDC != 0 {
		t.note = fmt.Sprintf("position moved from %d:%d to %d:%d, where %s is", t.line, t.character, bestLine, bestCol, render.Clip(name))
	}
	t.line, t.character = bestLine, bestCol
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// position is the LSP position of t.
func (t *target) position() map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": t.src.URI},
		"position":     map[string]any{"line": t.line, "character": t.character},
	}
}
