package bridge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// Sessions share one gopls, but one session's unsaved files and snippets
// must never show in another's answers (DESIGN §7). The gate that decides
// which calls run together, and which session's overlays gopls holds, is
// buffer.Gate; here are the middleware that runs every call through it,
// and the filters that keep other sessions' snippets out of answers.

// sessionKey is the context key of the state a gated call runs with.
type sessionKey struct{}

// state returns the calling session's state and whether the call passed
// the gate. A call that did not (a direct call outside MCP) runs with the
// state of the session with no id.
func (b *Bridge) state(ctx context.Context) (*buffer.Session, bool) {
	if st, ok := ctx.Value(sessionKey{}).(*buffer.Session); ok {
		return st, true
	}
	return b.sessionState(mcp.SessionID(ctx)), false
}

// sessionState returns the state of the session id, made on first use.
func (b *Bridge) sessionState(id string) *buffer.Session {
	b.sessionsMu.Lock()
	defer b.sessionsMu.Unlock()
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

// scratchRoot is the directory below which every snippet lives.
func (b *Bridge) scratchRoot() string {
	return filepath.Join(b.root, filepath.FromSlash(buffer.ScratchDir))
}

// foreign reports whether uri is a snippet the calling session may not
// see: a scratch file that is not one of its own snippets.
func (b *Bridge) foreign(ctx context.Context, uri string) bool {
	if !strings.Contains(uri, "/.goplsmcp/") {
		return false
	}
	path, err := lspclient.URIPath(uri)
	if err != nil || !iplace.Within(b.scratchRoot(), path) {
		return false
	}
	st, _ := b.state(ctx)
	return !st.Snippets.Has(lspclient.FileURI(path))
}

// foreignPath is foreign for a path.
func (b *Bridge) foreignPath(ctx context.Context, path string) bool {
	return iplace.Within(b.scratchRoot(), path) && b.foreign(ctx, lspclient.FileURI(path))
}

// errNotOpen answers a session that names a scratch file it does not own.
var errNotOpen = errors.New("that snippet is not open (snippets are forgotten after go_close, or when more than 32 are open); send its text again")

// dropForeign removes the locations in other sessions' snippets.
func (b *Bridge) dropForeign(ctx context.Context, locs []protocol.Location) []protocol.Location {
	return slices.DeleteFunc(locs, func(l protocol.Location) bool { return b.foreign(ctx, string(l.URI)) })
}

// foreignPackage reports whether an import path names another session's
// snippet package (…/.goplsmcp/scratch/N).
func (b *Bridge) foreignPackage(ctx context.Context, importPath string) bool {
	before, n, ok := strings.Cut(importPath, "/.goplsmcp/scratch/")
	if !ok || before == "" || strings.Contains(n, "/") {
		return false
	}
	st, _ := b.state(ctx)
	for _, uri := range st.Snippets.All() {
		if p, err := lspclient.URIPath(uri); err == nil && filepath.Base(filepath.Dir(p)) == n {
			return false
		}
	}
	return true
}
