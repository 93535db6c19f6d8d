package lspclient

import (
	"context"
	"sync"
	"time"
)

// An editor's requests go to gopls first. A person waits on each hover,
// definition and completion; an agent's call can wait a little. While an
// editor's request is in flight, and for a short while after the last one
// (an editor asks in bursts: a keystroke brings completion, hover,
// highlights), the client's other requests wait before they are sent to
// gopls, so that gopls and the machine's cores work on the editor's
// request alone. The wait is bounded: a request held for maxHold is sent
// whatever the editor does, so an editor that never stops asking slows
// the agents but never starves them. Requests already sent are never
// held back. With no editor, nothing waits.
//
// The editor's commands (workspace/executeCommand: run the tests, tidy,
// generate) are jobs that may run for minutes, not a keystroke's answer:
// they do not hold the agents back.
//
// The decision is here alone: editor.forward marks the editor's requests
// with editorRequest, every request passes through priority.admit in
// Client.traced.

const (
	// editorWindow is how long after an editor's request others still
	// wait: longer than the editor's gap between the requests of a burst.
	editorWindow = 30 * time.Millisecond
	// maxHold bounds how long another request waits for the editor.
	maxHold = 200 * time.Millisecond
)

// priority is the client's state of its editors' requests.
type priority struct {
	mu      sync.Mutex
	editing int       // the editors' requests in flight
	last    time.Time // when the last of them ended
	changed chan struct{}
	// held counts the requests waiting now; capped those sent because
	// their wait reached maxHold (for tests and the log).
	held, capped int
	// window and hold are editorWindow and maxHold (tests shorten them).
	window, hold time.Duration
}

type editorKey struct{}

// asEditor marks ctx as the context of an editor's request.
func asEditor(ctx context.Context) context.Context {
	return context.WithValue(ctx, editorKey{}, true)
}

// editorRequest is the context of an editor's request of method: marked
// to go first unless it is a command.
func editorRequest(ctx context.Context, method string) context.Context {
	if method == "workspace/executeCommand" {
		return ctx
	}
	return asEditor(ctx)
}

func isEditor(ctx context.Context) bool {
	v, _ := ctx.Value(editorKey{}).(bool)
	return v
}

// notifyLocked wakes those who wait for a change.
func (p *priority) notifyLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

func (p *priority) waitChan() chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

func (p *priority) limits() (window, hold time.Duration) {
	window, hold = p.window, p.hold
	if window == 0 {
		window = editorWindow
	}
	if hold == 0 {
		hold = maxHold
	}
	return window, hold
}

// admit returns once the request of ctx may be sent to gopls, and the
// function to call when it is over. An editor's request goes at once;
// another waits while an editor's request is in flight or has just
// ended, up to maxHold, or until ctx ends.
func (p *priority) admit(ctx context.Context) (func(), error) {
	if isEditor(ctx) {
		p.mu.Lock()
		p.editing++
		p.mu.Unlock()
		return func() {
			p.mu.Lock()
			p.editing--
			p.last = time.Now()
			p.notifyLocked()
			p.mu.Unlock()
		}, nil
	}
	p.mu.Lock()
	if p.editing == 0 && p.last.IsZero() {
		// No editor has asked anything: the common case costs a lock.
		p.mu.Unlock()
		return func() {}, nil
	}
	window, hold := p.limits()
	began := time.Now()
	counted := false
	defer func() {
		if counted {
			p.held--
			p.notifyLocked()
		}
		p.mu.Unlock()
	}()
	for {
		now := time.Now()
		free := now // when the editor leaves gopls to others
		if p.editing > 0 {
			free = now.Add(hold)
		} else if end := p.last.Add(window); end.After(now) {
			free = end
		}
		if capAt := began.Add(hold); free.After(capAt) {
			free = capAt
		}
		wait := free.Sub(now)
		if wait <= 0 {
			if p.editing > 0 || p.last.Add(window).After(now) {
				p.capped++
			}
			return func() {}, nil
		}
		if !counted {
			counted = true
			p.held++
			p.notifyLocked()
		}
		ch := p.waitChan()
		p.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-ch:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
		p.mu.Lock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// editorFirst is priority.admit for one of the client's requests,
// recording a wait in the request's trace.
func (c *Client) editorFirst(ctx context.Context) (func(), error) {
	began := time.Now()
	release, err := c.prio.admit(ctx)
	if time.Since(began) > time.Millisecond || err != nil {
		record(ctx, "waiting for the editor's requests", began, err)
	}
	return release, err
}
