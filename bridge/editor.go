package bridge

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// An editor served by the same gopls (goplsmcp lsp, docs/editors.md) is
// one more session at the gate: its unsaved buffers are its overlays.
// Without its user's consent they are held away from every agent's call
// as any session's are, so agents see the files on disk. With consent the
// editor is the gate's base: every agent's call sees its buffers, under
// the agent's own unsaved text, and its answer names the files it took
// from the editor. Either way no agent's overlay is in gopls while the
// editor's requests run, and what gopls publishes reaches the editor only
// while gopls holds the editor's view (lspclient.EditorGate.InView).

// An Editor is an editor's session at the gate; it implements
// lspclient.EditorGate.
type Editor struct {
	b  *Bridge
	st *buffer.Session
}

var editorSeq atomic.Int64

// Editor returns the gate's session for a new editor. shareUnsaved says
// its user consented to agents seeing its unsaved buffers.
func (b *Bridge) Editor(shareUnsaved bool) *Editor {
	e := &Editor{b: b, st: buffer.NewSession("editor-" + strconv.FormatInt(editorSeq.Add(1), 10))}
	if shareUnsaved {
		b.gate.SetBase(e.st)
	}
	return e
}

// Enter waits for the editor's turn on gopls: a request (change false)
// sees the editor's buffers and no agent's unsaved text; a change to its
// buffers waits until no other session's call runs.
func (e *Editor) Enter(ctx context.Context, change bool) (func(), error) {
	return e.b.buffers.Enter(ctx, e.st, change)
}

// TryEnter is Enter when it need not wait; ok is false when it would.
func (e *Editor) TryEnter(change bool) (func(), bool) {
	return e.b.buffers.TryEnter(e.st, change)
}

// Buffer records the editor's text of uri: an overlay while it is dirty.
func (e *Editor) Buffer(uri, text string, dirty, closed bool) {
	if dirty && !closed {
		e.b.gate.Overlaid(e.st, uri, text)
		return
	}
	e.b.gate.Reverted(e.st, uri)
}

// InView reports whether gopls holds the editor's view.
func (e *Editor) InView() bool { return e.b.gate.InView(e.st) }

// Private are the directories of agents' snippets, which are no
// editor's business (lspclient.EditorOptions.Private).
func (e *Editor) Private() []string {
	return []string{filepath.Join(e.b.root, filepath.FromSlash(buffer.ScratchDir))}
}

// End forgets the editor, once its connection has ended.
func (e *Editor) End(ctx context.Context) { e.b.buffers.End(ctx, e.st) }

// noteEditorBuffers adds to an agent's answer the files it saw as the
// consenting editor holds them, unsaved: those the agent gave no text of
// its own for.
func (b *Bridge) noteEditorBuffers(ctx context.Context, st *buffer.Session) {
	base, overlays := b.gate.Base()
	if base == nil || base == st || len(overlays) == 0 {
		return
	}
	var names []string
	for _, uri := range slices.Sorted(maps.Keys(overlays)) {
		if !b.gate.HasOverlay(st, uri) {
			names = append(names, b.displayURI(uri))
		}
	}
	if len(names) > 0 {
		mcp.AddNote(ctx, "unsaved in the editor, seen as the editor holds them (not as on disk): "+strings.Join(names, ", "))
	}
}
