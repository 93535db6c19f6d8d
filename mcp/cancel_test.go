package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCancelWhileWaitingForAPlace checks that a request cancelled while it
// waits for a place among the pending requests — the session is at its
// bound, so the request is not yet in the queue — is never run and never
// answered. Over HTTP the cancellation arrives on a POST of its own while
// the request's POST waits.
func TestCancelWhileWaitingForAPlace(t *testing.T) {
	g := newGateServer(t, &Options{MaxInFlight: 1})
	_, url := startHTTP(t, g.Server, nil)
	p := &peer{t: t, url: url}
	p.initialize("2025-11-25")
	ss := onlySession(t, g.Server)

	// One call runs and the rest of the pending places fill up.
	places := cap(ss.pending)
	answered := make(chan *answer, places+1)
	for i := range places {
		go func() { answered <- p.post(gateCall(fmt.Sprint("fill", i))) }()
	}
	within(t, "the first call to start", g.started)
	waitUntil(t, "the pending places to fill", func() bool { return len(ss.pending) == places })

	// This one waits for a place.
	late := make(chan *answer, 1)
	go func() { late <- p.post(gateCall("late")) }()
	waitUntil(t, "the late call to be known", func() bool {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		_, ok := ss.inflight[idKey(json.RawMessage(`"late"`))]
		return ok
	})
	if a := p.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"late"}}`); a.status != http.StatusAccepted {
		t.Errorf("cancel: status %d", a.status)
	}
	// Answered (with nothing) while every place is still taken.
	a := within(t, "the cancelled call's POST to end", late)
	if len(a.msgs) != 0 {
		t.Errorf("the call cancelled while it waited for a place was answered: %q", a.msgs)
	}
	if n := len(ss.pending); n != places {
		t.Errorf("%d pending places taken when the cancelled call's POST ended, want %d (none freed)", n, places)
	}

	close(g.release)
	for range places {
		if a := within(t, "a filling call to end", answered); len(a.msgs) != 1 || !strings.Contains(a.msgs[0], `"echo":"fill`) {
			t.Errorf("a filling call: %q", a.msgs)
		}
	}
	for range places - 1 {
		if id := within(t, "the queued calls to start", g.started); id == "late" {
			t.Error("the cancelled call ran")
		}
	}
	// The gate tool has started every call it was going to: the last
	// call after the release proves the late one is not still queued.
	if a := p.post(gateCall("after")); len(a.msgs) != 1 || !strings.Contains(a.msgs[0], `"echo":"after"`) {
		t.Errorf("a call after the others: %q", a.msgs)
	}
	if id := within(t, "the last call to start", g.started); id != "after" {
		t.Errorf("started %q, want after", id)
	}
}

// TestCancelByValue checks that notifications/cancelled names a request by
// the value of its id, not its spelling: JSON says "a" and "\u0061" are
// the same string, and -0 and 0 the same number.
func TestCancelByValue(t *testing.T) {
	for _, tt := range []struct{ id, cancel string }{
		{`"a"`, `"\u0061"`},
		{`"\u0062"`, `"b"`},
		{`0`, `-0`},
	} {
		t.Run(tt.id, func(t *testing.T) {
			g := newGateServer(t, nil)
			ps := startSession(t, g.Server)
			ps.initialize("2025-11-25")
			ps.send(`{"jsonrpc":"2.0","id":` + tt.id + `,"method":"tools/call","params":{"name":"gate","arguments":{"id":"x"}}}`)
			within(t, "the call to start", g.started)
			ps.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + tt.cancel + `}}`)
			within(t, "the call to stop", g.stopped)
			// The session ends having written all it was going to.
			ps.in.Close()
			for line := range ps.lines {
				t.Errorf("the cancelled call was answered: %s", line)
			}
		})
	}
}

// onlySession returns the server's one session.
func onlySession(t *testing.T, s *Server) *session {
	t.Helper()
	var ss *session
	waitUntil(t, "the session to exist", func() bool {
		s.mu.RLock()
		defer s.mu.RUnlock()
		for x := range s.sessions {
			ss = x
		}
		return len(s.sessions) == 1
	})
	return ss
}

// waitUntil waits up to 30 s for cond.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
