package bridge

import (
	"context"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// Sessions share one gopls, but one session's unsaved files and snippets
// must never show in another's answers (docs/safety.md, "Other sessions on one gopls"). The gate that decides
// which calls run together, and which session's overlays gopls holds, is
// buffer.Gate, and the filters that keep other sessions' snippets out of
// answers are buffer.Set's; here are the session each call runs as, the
// middleware that runs every call through the gate, and the end of a
// session.

// sessionKey is the context key of the state a gated call runs with.
type sessionKey struct{}

// caller returns the calling session and whether the call passed the
// gate. A call that did not (a direct call outside MCP) runs as the
// session with no id.
func (b *Bridge) caller(ctx context.Context) buffer.Caller {
	if st, ok := ctx.Value(sessionKey{}).(*buffer.Session); ok {
		return buffer.Caller{Session: st, Gated: true}
	}
	return buffer.Caller{Session: b.sessionState(mcp.SessionID(ctx))}
}

// sessionState returns the state of the session id, made on first use.
func (b *Bridge) sessionState(id string) *buffer.Session {
	b.sessionsMu.Lock()
	defer b.sessionsMu.Unlock()
	if b.sessions == nil { // bridges made for tests of paths alone
		b.sessions = map[string]*buffer.Session{}
	}
	st := b.sessions[id]
	if st == nil {
		st = buffer.NewSession(id)
		b.sessions[id] = st
	}
	return st
}

// A modern (2026-07-28) request is a session of its own, so the unsaved
// text it gives would die with its answer; a handle keeps it (see
// mcp.OfferHandles): the call that gives it is answered with a handle,
// and a later call that passes the handle runs as the same session, with
// the same overlays and snippets. Handles are bounded in number and idle
// time, and what each keeps in bytes (MaxKeptText, as every session's);
// a forgotten one ends its session, as a legacy session's end does.
const (
	// MaxHandles bounds the handles kept at once, over all clients.
	MaxHandles = 64
	// MaxKeptText bounds the unsaved text (overlays and snippets) one
	// session, and so one handle, keeps at once, in bytes: 16 texts of
	// the default --max-text-chars, and at least 4 bytes a character of
	// one text of --max-text-chars (see buffer.SetConfig.KeptBytes).
	// With MaxHandles, handles keep at most 512 MiB.
	MaxKeptText = 8 << 20
	// HandleIdle forgets a handle no call has used for this long.
	HandleIdle = 30 * time.Minute
)

// addSessions registers the gate around every tool call, the cleanup of
// a session's buffers when it ends, and the handles of modern requests.
func (b *Bridge) addSessions(s *mcp.Server) error {
	s.AddToolMiddleware(b.isolate)
	s.OnSessionEnd(b.endSession)
	s.OfferHandles(mcp.HandleOptions{
		Max:      MaxHandles,
		Idle:     HandleIdle,
		Argument: "from an earlier answer: see the unsaved text given then",
		Note:     "pass it as handle to later calls to see this unsaved text; go_close with handle alone forgets it",
		Lost:     "give the unsaved text again, without handle, for a new one",
	})
	return nil
}

// isolate runs a tool call through the gate. A modern call that leaves
// unsaved text in its session keeps it under a handle.
func (b *Bridge) isolate(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
	st := b.sessionState(mcp.SessionID(ctx))
	mutates := makesOverlay(mcp.ToolInput(ctx))
	leave, err := b.buffers.Enter(ctx, st, mutates)
	if err != nil {
		return nil, err
	}
	defer leave()
	out, err := next(context.WithValue(ctx, sessionKey{}, st))
	if err == nil && b.buffers.Holds(st) {
		mcp.KeepState(ctx)
	}
	if err == nil {
		b.noteEditorBuffers(ctx, st)
		b.noteSkew(ctx, mcp.SessionID(ctx), tool)
	}
	return out, err
}

// noteSkew adds to the first answer of each session the sentence that
// says gopls was built by a Go older than the workspace's (see
// modules.Skew), once: the false errors of such a gopls would otherwise
// send an agent to fix correct code. go_workspace says it in its own
// answer, each time. A request of the stateless revision is a session of
// its own, so each of its answers says it, unless a handle names a
// session that was told. A failed call tells nothing: a tool error is
// its one sentence.
func (b *Bridge) noteSkew(ctx context.Context, id, tool string) {
	b.sessionsMu.Lock()
	told := b.skewTold[id]
	b.sessionsMu.Unlock()
	if told {
		return
	}
	skew := b.mods.Skew()
	if skew == "" {
		return
	}
	b.sessionsMu.Lock()
	told = b.skewTold[id]
	if b.skewTold == nil { // bridges made for tests of paths alone
		b.skewTold = map[string]bool{}
	}
	b.skewTold[id] = true
	b.sessionsMu.Unlock()
	if !told && tool != workspaceTool.Name {
		mcp.AddNote(ctx, skew)
	}
}

// asSession runs fn, a request that is not a tool call (a resource that
// asks gopls), through the gate as the calling session: gopls then holds
// that session's overlays or none, never another's, so nothing of
// another session's unsaved text is in what fn reads — not even in a
// count.
func (b *Bridge) asSession(ctx context.Context, fn func(context.Context) (string, error)) (string, error) {
	st := b.sessionState(mcp.SessionID(ctx))
	leave, err := b.buffers.Enter(ctx, st, false)
	if err != nil {
		return "", err
	}
	defer leave()
	return fn(context.WithValue(ctx, sessionKey{}, st))
}

// overlayArgs is the input of a tool that takes unsaved text: every such
// tool takes it as a [Doc] (itself, or within an [At]), whose method the
// input gets.
type overlayArgs interface{ Overlay() bool }

// makesOverlay reports whether a call's decoded arguments may add an
// overlay: file together with text. The decision is the decoded value's,
// so it is the same however the JSON spelled the keys.
func makesOverlay(in any) bool {
	o, ok := in.(overlayArgs)
	return ok && o.Overlay()
}

// endSession forgets a session that has ended: its snippets are closed,
// and its overlays, if gopls holds them, reverted to the files on disk.
func (b *Bridge) endSession(id string) {
	b.sessionsMu.Lock()
	st := b.sessions[id]
	delete(b.sessions, id)
	delete(b.skewTold, id)
	b.sessionsMu.Unlock()
	if st == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.limits.withDefaults().Timeout)
	defer cancel()
	b.buffers.End(ctx, st)
}

// gate is the bridge's handle on the gate of sessions.
type gate struct{ *buffer.Gate }

func (g *gate) init() { g.Gate = buffer.NewGate() }
