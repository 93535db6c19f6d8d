package buffer

import (
	"context"
	"maps"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// These tests drive the gate's admission rules alone, without gopls: no
// case here needs gopls's overlays switched. Entering with a context that
// is already done succeeds exactly when the call is admitted at once, so
// it tells "starts now" from "would wait" without any timing.

func newTestGate() *gate {
	g := &gate{}
	g.init()
	return g
}

func newState(id string) *sessionState {
	return &sessionState{id: id, overlays: map[string]string{}}
}

func doneCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// enterNow enters the gate and fails the test if the call had to wait.
func enterNow(t *testing.T, g *gate, st *sessionState, mutates bool) func() {
	t.Helper()
	leave, err := g.enter(doneCtx(), nil, st, mutates)
	if err != nil {
		t.Fatalf("session %s (mutates %v) had to wait: %v", st.id, mutates, err)
	}
	return leave
}

// mustWait checks that a call would wait.
func mustWait(t *testing.T, g *gate, st *sessionState, mutates bool) {
	t.Helper()
	if leave, err := g.enter(doneCtx(), nil, st, mutates); err == nil {
		leave()
		t.Fatalf("session %s (mutates %v) started at once; want it to wait", st.id, mutates)
	}
}

// enterLater enters in the background; the channel yields the leave
// function once admitted.
func enterLater(t *testing.T, g *gate, st *sessionState, mutates bool) <-chan func() {
	t.Helper()
	ch := make(chan func(), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	go func() {
		leave, err := g.enter(ctx, nil, st, mutates)
		if err != nil {
			t.Errorf("session %s never started: %v", st.id, err)
			close(ch)
			return
		}
		ch <- leave
	}()
	return ch
}

// waitQueued waits until n calls wait at the gate.
func waitQueued(t *testing.T, g *gate, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		q := len(g.queue)
		g.mu.Unlock()
		if q == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls waiting, want %d", q, n)
		}
		runtime.Gosched()
	}
}

// TestGateOneSession checks that a single session (stdio) never waits,
// whatever mix of calls it makes: with overlays or without, calls that
// add overlays and calls that do not, all at once.
func TestGateOneSession(t *testing.T) {
	g := newTestGate()
	st := newState("stdio")
	l1 := enterNow(t, g, st, false)
	l2 := enterNow(t, g, st, true)
	g.overlaid(st, "file:///m/a.go", "package a")
	l3 := enterNow(t, g, st, false)
	l4 := enterNow(t, g, st, true)
	l2()
	l1()
	g.reverted(st, "file:///m/a.go")
	l5 := enterNow(t, g, st, false)
	l3()
	l4()
	l5()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.total != 0 || len(g.running) != 0 || g.mutators != 0 || len(g.queue) != 0 || g.switching {
		t.Errorf("after every call left: total %d, running %v, mutators %d, queue %d, switching %v",
			g.total, g.running, g.mutators, len(g.queue), g.switching)
	}
}

// TestGateSharedCalls checks that calls of sessions without overlays run
// together, and that a session about to add an overlay waits for the
// other sessions' calls, which then wait for it.
func TestGateSharedCalls(t *testing.T) {
	g := newTestGate()
	a, b := newState("a"), newState("b")
	la := enterNow(t, g, a, false)
	lb := enterNow(t, g, b, false)
	mustWait(t, g, a, true)
	lb()
	// Only a's own call runs now: a may add an overlay.
	lam := enterNow(t, g, a, true)
	mustWait(t, g, b, false)
	// Once a's call that could add one ends, and a has none, b's calls
	// fit again, alongside a's plain call.
	lam()
	lb2 := enterNow(t, g, b, false)
	la()
	lb2()
}

// TestGateArrivalOrder checks that waiting calls start in arrival order:
// a call that would fit the running ones still queues behind an earlier
// waiter, so a session wanting gopls to itself is not starved.
func TestGateArrivalOrder(t *testing.T) {
	g := newTestGate()
	a, b := newState("a"), newState("b")
	la := enterNow(t, g, a, false)
	bTurn := enterLater(t, g, b, true)
	waitQueued(t, g, 1)
	// a's next plain call would fit a's running one, but b came first.
	mustWait(t, g, a, false)
	aTurn := enterLater(t, g, a, false)
	waitQueued(t, g, 2)
	la()
	lb := <-bTurn
	select {
	case <-aTurn:
		t.Fatal("a's call started while b's call, which may add an overlay, runs")
	default:
	}
	lb()
	la2 := <-aTurn
	la2()
}

// TestGateCancelledWaiter checks that a call whose context ends while it
// waits leaves the queue, and the calls behind it go on.
func TestGateCancelledWaiter(t *testing.T) {
	g := newTestGate()
	a, b, c := newState("a"), newState("b"), newState("c")
	la := enterNow(t, g, a, true)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := g.enter(ctx, nil, b, true)
		gaveUp <- err
	}()
	waitQueued(t, g, 1)
	cTurn := enterLater(t, g, c, false)
	waitQueued(t, g, 2)
	cancel()
	if err := <-gaveUp; err == nil {
		t.Fatal("a cancelled waiter was admitted")
	}
	la()
	lc := <-cTurn
	lc()
}

// recordSwitcher records what the gate makes gopls hold.
type recordSwitcher struct{ held map[string]string }

func (r *recordSwitcher) Revert(_ context.Context, uri string) error { delete(r.held, uri); return nil }
func (r *recordSwitcher) Overlay(_ context.Context, uri, text string) error {
	r.held[uri] = text
	return nil
}
func (r *recordSwitcher) SwitchTimeout() time.Duration { return time.Second }

// With a base (an editor sharing its unsaved buffers), its overlays are
// the neutral state: other sessions' calls without overlays run with them
// in gopls and need no switch; a session with its own overlays sees them
// over the base's; and the base's view comes back after it.
func TestGateBase(t *testing.T) {
	g := newTestGate()
	sw := &recordSwitcher{held: map[string]string{}}
	editor, agent, other := newState("editor"), newState("agent"), newState("other")
	g.SetBase(editor)
	leave := enterNow(t, g, editor, true)
	g.overlaid(editor, "a.go", "editor a")
	g.overlaid(editor, "b.go", "editor b")
	sw.held["a.go"], sw.held["b.go"] = "editor a", "editor b"
	leave()

	// Calls without overlays of two sessions and the editor's own run
	// together, on the editor's buffers.
	l1 := enterNow(t, g, agent, false)
	l2 := enterNow(t, g, other, false)
	l3 := enterNow(t, g, editor, false)
	if !g.InView(editor) {
		t.Errorf("gopls does not hold the editor's view while calls without overlays run")
	}
	l1()
	l2()
	l3()

	// The agent's own text lies over the editor's.
	ctx := context.Background()
	leave, err := g.Enter(ctx, sw, agent, true)
	if err != nil {
		t.Fatal(err)
	}
	sw.held["a.go"] = "agent a"
	g.overlaid(agent, "a.go", "agent a")
	if g.InView(editor) {
		t.Errorf("the editor is in view while gopls holds the agent's a.go")
	}
	leave()
	want := map[string]string{"a.go": "agent a", "b.go": "editor b"}
	if diff := cmp.Diff(want, sw.held); diff != "" {
		t.Errorf("gopls holds, during the agent's call (-want +got):\n%s", diff)
	}

	// Another session's call brings back the editor's buffers.
	leave, err = g.Enter(ctx, sw, other, false)
	if err != nil {
		t.Fatal(err)
	}
	leave()
	want = map[string]string{"a.go": "editor a", "b.go": "editor b"}
	if diff := cmp.Diff(want, sw.held); diff != "" {
		t.Errorf("gopls holds, for another session's call (-want +got):\n%s", diff)
	}
	if !g.InView(editor) {
		t.Errorf("the editor's view did not come back")
	}
	if text, ok := g.BaseOverlay(other, "b.go"); !ok || text != "editor b" {
		t.Errorf("BaseOverlay(other, b.go) = %q, %v", text, ok)
	}
	if _, ok := g.BaseOverlay(editor, "b.go"); ok {
		t.Errorf("BaseOverlay names the base's own overlay to the base")
	}
}

// gateState is what the gate counts, for comparing before and after.
type gateState struct {
	Total, Mutators, Queued int
	Switching               bool
	Exclusive               string
	Applied                 map[string]string
}

func stateOf(g *Gate) gateState {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := gateState{Total: g.total, Mutators: g.mutators, Queued: len(g.queue), Switching: g.switching, Applied: maps.Clone(g.applied)}
	if g.exclusive != nil {
		s.Exclusive = g.exclusive.id
	}
	return s
}

// TestGateTryEnter checks that TryEnter admits a call exactly when Enter
// would at once with nothing to switch, and that a refusal leaves the
// gate as it was: while another session may add an overlay, while a
// call waits ahead (arrival order), and when gopls's overlays would have
// to be switched first.
func TestGateTryEnter(t *testing.T) {
	g := newTestGate()
	a, b := newState("a"), newState("b")
	leave, ok := g.TryEnter(b, false)
	if !ok {
		t.Fatal("an empty gate refused a call")
	}
	leave()

	la := enterNow(t, g, a, true)
	before := stateOf(g)
	if _, ok := g.TryEnter(b, false); ok {
		t.Fatal("admitted beside another session's call that may add an overlay")
	}
	if diff := cmp.Diff(before, stateOf(g)); diff != "" {
		t.Errorf("the gate after a refusal (-before +after):\n%s", diff)
	}
	// a's own calls fit beside it.
	la2, ok := g.TryEnter(a, false)
	if !ok {
		t.Fatal("refused a session's call beside its own")
	}
	la2()

	// b waits for a; a's next call would fit, but b came first.
	bTurn := enterLater(t, g, b, true)
	waitQueued(t, g, 1)
	before = stateOf(g)
	if _, ok := g.TryEnter(a, false); ok {
		t.Fatal("admitted ahead of a call waiting before it")
	}
	if diff := cmp.Diff(before, stateOf(g)); diff != "" {
		t.Errorf("the gate after a refusal (-before +after):\n%s", diff)
	}
	la()
	lb := <-bTurn
	g.overlaid(b, "file:///m/b.go", "package b // unsaved")
	g.mu.Lock()
	g.applied["file:///m/b.go"] = "package b // unsaved"
	g.mu.Unlock()
	lb()

	// gopls holds b's overlay: a's call needs it reverted first.
	before = stateOf(g)
	if _, ok := g.TryEnter(a, false); ok {
		t.Fatal("admitted a call that needs gopls's overlays switched")
	}
	if diff := cmp.Diff(before, stateOf(g)); diff != "" {
		t.Errorf("the gate after a refusal (-before +after):\n%s", diff)
	}
	// Enter, which may switch, still does.
	sw := &recordSwitcher{held: map[string]string{"file:///m/b.go": "package b // unsaved"}}
	leave, err := g.Enter(context.Background(), sw, a, false)
	if err != nil {
		t.Fatal(err)
	}
	leave()
	if len(sw.held) != 0 {
		t.Errorf("gopls holds %v for a's call, want nothing", sw.held)
	}
	if leave, ok := g.TryEnter(a, false); !ok {
		t.Error("refused a call once gopls holds what it needs")
	} else {
		leave()
	}
	if s := stateOf(g); s.Total != 0 || s.Mutators != 0 || s.Queued != 0 || s.Switching {
		t.Errorf("after every call left: %+v", s)
	}
}
