package mcp

import (
	"context"
	"strings"
	"sync"
)

// callNotes are the notes a tool call's handler or middleware adds to its
// answer (see [AddNote]).
type callNotes struct {
	mu   sync.Mutex
	list []string
}

type notesKey struct{}

// AddNote adds a line to the text of the answer of the tool call whose
// context is ctx, after what the tool rendered; the structured content is
// left as the tool's output schema says. Outside a tool call it does
// nothing.
func AddNote(ctx context.Context, note string) {
	n, ok := ctx.Value(notesKey{}).(*callNotes)
	if !ok {
		return
	}
	n.mu.Lock()
	n.list = append(n.list, note)
	n.mu.Unlock()
}

// withNotes gives a tool call's context a place for its notes.
func withNotes(ctx context.Context) (context.Context, *callNotes) {
	n := &callNotes{}
	return context.WithValue(ctx, notesKey{}, n), n
}

// text is the notes, a line each.
func (n *callNotes) text() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.list, "\n")
}
