package bridge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/goplsmcp/goplsmcp/bridge/internal/buffer"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// Sessions share one gopls, but one session's unsaved files and snippets
// must never show in another's answers (DESIGN §7).
//
// Snippets are simple: each lives in a scratch directory of its own, known
// only to the session that made it. No other package can import it, so it
// changes no other answer; what a session can reach by name (file, uri,
// go_close) is checked against its own snippets, and answers that list
// places across the workspace drop other sessions' scratch files.
//
// Overlays (a file with unsaved text) are not: gopls holds one content per
// file, and an overlay changes its answers about every file that depends
// on it. So gopls holds the overlays of one session at a time, and the
// gate decides which calls may run together:
//
//   - calls of sessions that have no overlays and will make none (most
//     calls) run together, while gopls holds no overlay;
//   - calls of a session that has overlays, or may make one (file with
//     text), run only with calls of the same session, while gopls holds
//     exactly that session's overlays.
//
// A call that needs another state waits until the running calls have
// ended; the first waiter then reverts the overlays gopls holds to the
// files on disk and applies its session's, and the waiters that fit the
// new state start together. Waiters start in arrival order, so neither
// kind of call starves the other. With a single session (stdio) no call
// ever waits and nothing is ever switched.

// A sessionState is what one MCP session has given gopls.
type sessionState struct {
	id string
	// overlays are the unsaved texts the session gave for files, by URI.
	// Guarded by the gate's mutex.
	overlays map[string]string
	// snippets are the session's snippets.
	snippets buffer.Snippets
}

// sessionKey is the context key of the state a gated call runs with.
type sessionKey struct{}

// state returns the calling session's state and whether the call passed
// the gate. A call that did not (a direct call outside MCP) runs with the
// state of the session with no id.
func (b *Bridge) state(ctx context.Context) (*sessionState, bool) {
	if st, ok := ctx.Value(sessionKey{}).(*sessionState); ok {
		return st, true
	}
	return b.sessionState(mcp.SessionID(ctx)), false
}

// sessionState returns the state of the session id, made on first use.
func (b *Bridge) sessionState(id string) *sessionState {
	b.sessionsMu.Lock()
	defer b.sessionsMu.Unlock()
	st := b.sessions[id]
	if st == nil {
		st = &sessionState{id: id, overlays: map[string]string{}}
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
	leave, err := b.gate.enter(ctx, b, st, mutates)
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
	for _, uri := range st.snippets.All() {
		if _, err := b.client.CloseDocument(ctx, uri); err != nil {
			b.log.Debug("closing an ended session's snippet", "error", err)
		}
	}
	b.gate.forget(ctx, b, st)
}

// A gate admits tool calls so that gopls holds the overlays of the
// session whose calls run, and of no other (see the comment at the top of
// this file).
type gate struct {
	mu sync.Mutex
	// applied are the overlays gopls holds, by URI.
	applied map[string]string
	// exclusive is the session whose calls alone may run; nil when calls
	// of any session without overlays may.
	exclusive *sessionState
	running   map[*sessionState]int
	total     int
	// mutators counts the running calls that may add an overlay.
	mutators  int
	queue     []*ticket
	switching bool
}

// A ticket is a call waiting for its turn.
type ticket struct {
	st      *sessionState
	mutates bool
	turn    chan struct{}
	granted bool
	// mustSwitch is set when the holder must first make gopls hold its
	// session's overlays (target) and no others.
	mustSwitch bool
	target     map[string]string
}

func (g *gate) init() {
	g.applied = map[string]string{}
	g.running = map[*sessionState]int{}
}

// enter waits until a call of st may run, switching gopls's overlays
// first if that is the call's part, and returns the function that ends
// the call.
func (g *gate) enter(ctx context.Context, b *Bridge, st *sessionState, mutates bool) (leave func(), err error) {
	t := &ticket{st: st, mutates: mutates, turn: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, t)
	g.dispatch()
	g.mu.Unlock()
	select {
	case <-t.turn:
	case <-ctx.Done():
		g.mu.Lock()
		if !t.granted {
			g.queue = slices.DeleteFunc(g.queue, func(x *ticket) bool { return x == t })
			g.dispatch()
			g.mu.Unlock()
			return nil, fmt.Errorf("waiting for other sessions' calls to finish: %w", context.Cause(ctx))
		}
		g.mu.Unlock()
	}
	leave = func() { g.leave(st, mutates) }
	if t.mustSwitch {
		err := g.apply(ctx, b, t.target)
		g.mu.Lock()
		g.switching = false
		g.dispatch()
		g.mu.Unlock()
		if err != nil {
			leave()
			return nil, err
		}
	}
	return leave, nil
}

func (g *gate) leave(st *sessionState, mutates bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running[st]--
	if g.running[st] == 0 {
		delete(g.running, st)
	}
	g.total--
	if mutates {
		g.mutators--
	}
	g.dispatch()
}

// dispatch starts waiting calls, in arrival order, while they fit. g.mu
// is held.
func (g *gate) dispatch() {
	for len(g.queue) > 0 && !g.switching {
		t := g.queue[0]
		ok, mustSwitch := g.admit(t.st, t.mutates)
		if !ok {
			return
		}
		g.queue = g.queue[1:]
		t.granted, t.mustSwitch = true, mustSwitch
		if mustSwitch {
			t.target = maps.Clone(t.st.overlays)
			if g.exclusive != t.st {
				t.target = map[string]string{}
			}
		}
		close(t.turn)
	}
}

// admit decides whether a call of st may start now; if so it counts it
// running and reports whether it must switch gopls's overlays first
// (g.switching is then set until it has). g.mu is held.
func (g *gate) admit(st *sessionState, mutates bool) (ok, mustSwitch bool) {
	start := func(switchFirst bool) (bool, bool) {
		g.running[st]++
		g.total++
		if mutates {
			g.mutators++
		}
		g.switching = switchFirst
		return true, switchFirst
	}
	if mutates || len(st.overlays) > 0 {
		// The call needs gopls to itself, holding st's overlays.
		if g.exclusive == st {
			return start(false)
		}
		if g.total > g.running[st] {
			return false, false
		}
		// No other session's call runs.
		if maps.Equal(g.applied, st.overlays) {
			g.exclusive = st
			return start(false)
		}
		if g.total > 0 {
			// st's own calls see gopls as it is; they must end first.
			return false, false
		}
		g.exclusive = st
		return start(true)
	}
	// The call neither has overlays nor makes one: it needs gopls to hold
	// none, and no running call that may make one.
	if g.exclusive == st {
		return start(false)
	}
	if w := g.exclusive; w != nil {
		switch {
		case len(w.overlays) == 0 && g.mutators == 0:
			// w's running calls see no overlays and make none.
		case g.total == 0:
			// w's overlays are reverted below.
		default:
			return false, false
		}
		g.exclusive = nil
	}
	if len(g.applied) == 0 {
		return start(false)
	}
	if g.total == 0 {
		return start(true)
	}
	return false, false
}

// apply makes gopls hold exactly the overlays target: the others are
// reverted to the files on disk (closed, so that gopls reads the disk),
// target's applied. No other call runs meanwhile. It records what it did
// as it goes, so that a failure leaves g.applied true.
func (g *gate) apply(ctx context.Context, b *Bridge, target map[string]string) error {
	// The switch must not stop halfway because the call that does it is
	// cancelled; the client's timeout bounds it instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.limits.withDefaults().Timeout)
	defer cancel()
	g.mu.Lock()
	var revert []string
	for uri, text := range g.applied {
		if t, ok := target[uri]; !ok || t != text {
			revert = append(revert, uri)
		}
	}
	g.mu.Unlock()
	slices.Sort(revert)
	for _, uri := range revert {
		if _, err := b.client.CloseDocument(ctx, uri); err != nil {
			return fmt.Errorf("reverting another session's unsaved text of %s: %w", b.displayURI(uri), goplsError(err))
		}
		g.mu.Lock()
		delete(g.applied, uri)
		g.mu.Unlock()
	}
	uris := slices.Sorted(maps.Keys(target))
	for _, uri := range uris {
		g.mu.Lock()
		_, done := g.applied[uri]
		g.mu.Unlock()
		if done {
			continue
		}
		l, err := b.client.Hold(ctx, uri, target[uri], true)
		if err != nil {
			return fmt.Errorf("restoring this session's unsaved text of %s: %w", b.displayURI(uri), goplsError(err))
		}
		l.Release()
		g.mu.Lock()
		g.applied[uri] = target[uri]
		g.mu.Unlock()
	}
	return nil
}

// owns reports whether gopls holds st's overlays for a running call of st
// alone, so that the call may change them.
func (g *gate) owns(st *sessionState) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.exclusive == st
}

// overlaid records that gopls now holds text as st's overlay of uri.
func (g *gate) overlaid(st *sessionState, uri, text string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st.overlays[uri] = text
	if g.exclusive == st {
		g.applied[uri] = text
	}
}

// reverted records that st's overlay of uri, if it had one, is gone:
// gopls holds the file as on disk, or not at all.
func (g *gate) reverted(st *sessionState, uri string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := st.overlays[uri]; !ok {
		return
	}
	delete(st.overlays, uri)
	if g.exclusive == st {
		delete(g.applied, uri)
	}
}

// hasOverlay reports whether st has an overlay of uri.
func (g *gate) hasOverlay(st *sessionState, uri string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := st.overlays[uri]
	return ok
}

// forget drops an ended session: if gopls holds its overlays they are
// reverted, and calls waiting for that may start.
func (g *gate) forget(ctx context.Context, b *Bridge, st *sessionState) {
	g.mu.Lock()
	if g.exclusive != st || g.total > 0 || g.switching {
		// Its overlays are not in gopls (its calls have all ended, so
		// it holds gopls for nobody).
		if g.exclusive == st && g.total == 0 {
			g.exclusive = nil
		}
		g.mu.Unlock()
		return
	}
	g.exclusive = nil
	g.switching = true
	g.running[st]++
	g.total++
	g.mu.Unlock()
	err := g.apply(ctx, b, map[string]string{})
	g.mu.Lock()
	g.switching = false
	g.mu.Unlock()
	g.leave(st, false)
	if err != nil {
		b.log.Warn("reverting an ended session's unsaved files", "error", err)
	}
}

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
	return !st.snippets.Has(lspclient.FileURI(path))
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
	for _, uri := range st.snippets.All() {
		if p, err := lspclient.URIPath(uri); err == nil && filepath.Base(filepath.Dir(p)) == n {
			return false
		}
	}
	return true
}
