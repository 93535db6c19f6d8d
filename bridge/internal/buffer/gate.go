package buffer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// Sessions share one gopls, but one session's unsaved files and snippets
// must never show in another's answers (docs/safety.md, "Other sessions on one gopls").
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

// A Session is what one MCP session has given gopls.
type Session struct {
	id string
	// overlays are the unsaved texts the session gave for files, by URI.
	// Guarded by the gate's mutex.
	overlays map[string]string
	// Snippets are the session's snippets.
	Snippets Snippets
}

// NewSession returns the state of the session id, which has given
// nothing yet.
func NewSession(id string) *Session {
	return &Session{id: id, overlays: map[string]string{}}
}

// A Switcher changes what gopls holds for the gate, while no other call
// runs.
type Switcher interface {
	// Revert makes gopls hold uri as it is on disk (or not at all).
	Revert(ctx context.Context, uri string) error
	// Overlay makes gopls hold text as the content of uri.
	Overlay(ctx context.Context, uri, text string) error
	// SwitchTimeout bounds a switch, which a cancelled call does not
	// stop halfway.
	SwitchTimeout() time.Duration
}

// A Gate admits tool calls so that gopls holds the overlays of the
// session whose calls run, and of no other (see the comment at the top of
// this file).
type Gate struct {
	mu sync.Mutex
	// applied are the overlays gopls holds, by URI.
	applied map[string]string
	// exclusive is the session whose calls alone may run; nil when calls
	// of any session without overlays may.
	exclusive *Session
	running   map[*Session]int
	total     int
	// mutators counts the running calls that may add an overlay.
	mutators  int
	queue     []*ticket
	switching bool
	// base, if set, is the session whose overlays every session sees
	// under its own (an editor whose user consented to share its unsaved
	// buffers, see editor.go): gopls's neutral state holds them instead
	// of none.
	base *Session
}

// A ticket is a call waiting for its turn.
type ticket struct {
	st      *Session
	mutates bool
	turn    chan struct{}
	granted bool
	// mustSwitch is set when the holder must first make gopls hold its
	// session's overlays (target) and no others.
	mustSwitch bool
	target     map[string]string
}

// NewGate returns a gate at which no call runs and gopls holds no
// overlay.
func NewGate() *Gate {
	g := &Gate{}
	g.init()
	return g
}

func (g *Gate) init() {
	g.applied = map[string]string{}
	g.running = map[*Session]int{}
}

// Enter waits until a call of st may run, switching gopls's overlays
// first if that is the call's part, and returns the function that ends
// the call.
func (g *Gate) Enter(ctx context.Context, sw Switcher, st *Session, mutates bool) (leave func(), err error) {
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
		err := g.apply(ctx, sw, t.target)
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

// TryEnter is Enter for a call that must not wait: it returns at once,
// with ok false, if the call would have to wait or to switch gopls's
// overlays first, and then leaves the gate as it was.
func (g *Gate) TryEnter(st *Session, mutates bool) (leave func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) > 0 || g.switching {
		// Others wait their turn first.
		return nil, false
	}
	exclusive := g.exclusive
	ok, mustSwitch := g.admit(st, mutates)
	if ok && !mustSwitch {
		return func() { g.leave(st, mutates) }, true
	}
	if ok {
		// Counted as running with a switch to make: undone, as if it had
		// never come.
		g.running[st]--
		if g.running[st] == 0 {
			delete(g.running, st)
		}
		g.total--
		if mutates {
			g.mutators--
		}
		g.switching = false
	}
	g.exclusive = exclusive
	return nil, false
}

func (g *Gate) leave(st *Session, mutates bool) {
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
func (g *Gate) dispatch() {
	for len(g.queue) > 0 && !g.switching {
		t := g.queue[0]
		ok, mustSwitch := g.admit(t.st, t.mutates)
		if !ok {
			return
		}
		g.queue = g.queue[1:]
		t.granted, t.mustSwitch = true, mustSwitch
		if mustSwitch {
			t.target = g.want(t.st)
			if g.exclusive != t.st {
				t.target = g.neutral()
			}
		}
		close(t.turn)
	}
}

// admit decides whether a call of st may start now; if so it counts it
// running and reports whether it must switch gopls's overlays first
// (g.switching is then set until it has). g.mu is held.
func (g *Gate) admit(st *Session, mutates bool) (ok, mustSwitch bool) {
	start := func(switchFirst bool) (bool, bool) {
		g.running[st]++
		g.total++
		if mutates {
			g.mutators++
		}
		g.switching = switchFirst
		return true, switchFirst
	}
	if mutates || (st != g.base && len(st.overlays) > 0) {
		// The call needs gopls to itself, holding st's overlays.
		if g.exclusive == st {
			return start(false)
		}
		if g.total > g.running[st] {
			return false, false
		}
		// No other session's call runs.
		if maps.Equal(g.applied, g.want(st)) {
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
		case maps.Equal(g.want(w), g.neutral()) && g.mutators == 0:
			// w's running calls see the neutral state and change none.
		case g.total == 0:
			// w's overlays are reverted below.
		default:
			return false, false
		}
		g.exclusive = nil
	}
	if maps.Equal(g.applied, g.neutral()) {
		return start(false)
	}
	if g.total == 0 {
		return start(true)
	}
	return false, false
}

// neutral is what gopls holds for the calls of sessions without overlays:
// the base's overlays, or none. g.mu is held.
func (g *Gate) neutral() map[string]string {
	if g.base == nil {
		return map[string]string{}
	}
	return maps.Clone(g.base.overlays)
}

// want is what gopls must hold for a call of st: its overlays over the
// base's. g.mu is held.
func (g *Gate) want(st *Session) map[string]string {
	w := g.neutral()
	maps.Copy(w, st.overlays)
	return w
}

// apply makes gopls hold exactly the overlays target: the others are
// reverted to the files on disk (closed, so that gopls reads the disk),
// target's applied. No other call runs meanwhile. It records what it did
// as it goes, so that a failure leaves g.applied true.
func (g *Gate) apply(ctx context.Context, sw Switcher, target map[string]string) error {
	// The switch must not stop halfway because the call that does it is
	// cancelled; the client's timeout bounds it instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sw.SwitchTimeout())
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
		if err := sw.Revert(ctx, uri); err != nil {
			return err
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
		if err := sw.Overlay(ctx, uri, target[uri]); err != nil {
			return err
		}
		g.mu.Lock()
		g.applied[uri] = target[uri]
		g.mu.Unlock()
	}
	return nil
}

// Owns reports whether gopls holds st's overlays for a running call of st
// alone, so that the call may change them.
func (g *Gate) Owns(st *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.exclusive == st
}

// Overlaid records that gopls now holds text as st's overlay of uri.
func (g *Gate) Overlaid(st *Session, uri, text string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st.overlays[uri] = text
	if g.exclusive == st {
		g.applied[uri] = text
	}
}

// OverlayURIs returns the URIs st holds overlays for.
func (g *Gate) OverlayURIs(st *Session) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Collect(maps.Keys(st.overlays))
}

// OverlayBytes returns the bytes of st's overlays, but for uri's.
func (g *Gate) OverlayBytes(st *Session, uri string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for u, text := range st.overlays {
		if u != uri {
			n += len(text)
		}
	}
	return n
}

// Reverted records that st's overlay of uri, if it had one, is gone:
// gopls holds the file as on disk, or not at all.
func (g *Gate) Reverted(st *Session, uri string) {
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

// HasOverlay reports whether st has an overlay of uri.
func (g *Gate) HasOverlay(st *Session, uri string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := st.overlays[uri]
	return ok
}

// HasOverlays reports whether st has an overlay of any file.
func (g *Gate) HasOverlays(st *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(st.overlays) > 0
}

// Forget drops an ended session: if gopls holds its overlays they are
// reverted, and calls waiting for that may start. The error says why they
// could not all be reverted.
func (g *Gate) Forget(ctx context.Context, sw Switcher, st *Session) error {
	g.mu.Lock()
	if g.base == st {
		g.base = nil
	}
	if g.exclusive != st || g.total > 0 || g.switching {
		// Its overlays are not in gopls (its calls have all ended, so
		// it holds gopls for nobody).
		if g.exclusive == st && g.total == 0 {
			g.exclusive = nil
		}
		g.mu.Unlock()
		return nil
	}
	g.exclusive = nil
	g.switching = true
	g.running[st]++
	g.total++
	target := g.neutral()
	g.mu.Unlock()
	err := g.apply(ctx, sw, target)
	g.mu.Lock()
	g.switching = false
	g.mu.Unlock()
	g.leave(st, false)
	return err
}

// SetBase makes st's overlays the base every session sees under its own
// (nil: none), as an editor whose user shares its unsaved buffers with
// agents. It takes effect at the next switch.
func (g *Gate) SetBase(st *Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.base = st
}

// Base returns the base session and a copy of its overlays.
func (g *Gate) Base() (*Session, map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.base == nil {
		return nil, nil
	}
	return g.base, maps.Clone(g.base.overlays)
}

// InView reports whether gopls holds exactly st's view now: the overlays a
// call of st would see, and no others.
func (g *Gate) InView(st *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.switching && maps.Equal(g.applied, g.want(st))
}

// BaseOverlay returns the base's overlay of uri, if the base is another
// session than st and has one.
func (g *Gate) BaseOverlay(st *Session, uri string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.base == nil || g.base == st {
		return "", false
	}
	text, ok := g.base.overlays[uri]
	return text, ok
}
