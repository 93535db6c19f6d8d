package bridge

import (
	"context"
	"fmt"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	"github.com/goplsmcp/goplsmcp/mcp"
)

// Sessions share one gopls, but one session's unsaved files and snippets
// must never show in another's answers (DESIGN §7). The gate that decides
// which calls run together, and which session's overlays gopls holds, is
// buffer.Gate; here are the middleware that runs every call through it,
// and the filters that keep other sessions' snippets out of answers.

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

// addSessions registers the gate around every tool call, and the cleanup
// of a session's buffers when it ends.
func (b *Bridge) addSessions(s *mcp.Server) error {
	s.AddToolMiddleware(b.isolate)
	s.OnSessionEnd(b.endSession)
	return nil
}

// isolate runs a tool call through the gate.
func (b *Bridge) isolate(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error) {
	st := b.sessionState(mcp.SessionID(ctx))
	mutates := makesOverlay(mcp.ToolInput(ctx))
	leave, err := b.gate.Enter(ctx, switcher{b}, st, mutates)
	if err != nil {
		return nil, err
	}
	defer leave()
	return next(context.WithValue(ctx, sessionKey{}, st))
}

// overlayArgs is the input of a tool that takes unsaved text: every such
// tool takes it as a [Doc] (itself, or within an [At]), whose method the
// input gets.
type overlayArgs interface{ overlay() bool }

// makesOverlay reports whether a call's decoded arguments may add an
// overlay: file together with text. The decision is the decoded value's,
// so it is the same however the JSON spelled the keys.
func makesOverlay(in any) bool {
	o, ok := in.(overlayArgs)
	return ok && o.overlay()
}

// endSession forgets a session that has ended: its snippets are closed,
// and its overlays, if gopls holds them, reverted to the files on disk.
func (b *Bridge) endSession(id string) {
	b.sessionsMu.Lock()
	st := b.sessions[id]
	delete(b.sessions, id)
	b.sessionsMu.Unlock()
	if st == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.limits.withDefaults().Timeout)
	defer cancel()
	for _, uri := range st.Snippets.All() {
		if _, err := b.client.CloseDocument(ctx, uri); err != nil {
			b.log.Debug("closing an ended session's snippet", "error", err)
		}
	}
	if err := b.gate.Forget(ctx, switcher{b}, st); err != nil {
		b.log.Warn("reverting an ended session's unsaved files", "error", err)
	}
}

// gate is the bridge's handle on the gate of sessions.
type gate struct{ *buffer.Gate }

func (g *gate) init() { g.Gate = buffer.NewGate() }

// switcher is how the gate changes what gopls holds.
type switcher struct{ b *Bridge }

// Revert closes uri, so that gopls reads it from disk.
func (s switcher) Revert(ctx context.Context, uri string) error {
	if _, err := s.b.client.CloseDocument(ctx, uri); err != nil {
		return fmt.Errorf("reverting another session's unsaved text of %s: %w", s.b.displayURI(uri), goplsError(err))
	}
	return nil
}

// Overlay gives gopls text as the content of uri.
func (s switcher) Overlay(ctx context.Context, uri, text string) error {
	l, err := s.b.client.Hold(ctx, uri, text, true)
	if err != nil {
		return fmt.Errorf("restoring this session's unsaved text of %s: %w", s.b.displayURI(uri), goplsError(err))
	}
	l.Release()
	return nil
}

// SwitchTimeout is the timeout of a call.
func (s switcher) SwitchTimeout() time.Duration { return s.b.limits.withDefaults().Timeout }
