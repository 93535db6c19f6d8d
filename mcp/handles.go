package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// A modern request is a session of its own (see [SessionID]), so what a
// tool keeps per session would die with every answer. A handle lets it
// live on explicitly: a tool call that leaves state worth keeping says so
// ([KeepState]); its answer then carries a handle, a random name for the
// call's session id, and a later call that passes the handle runs under
// that id again. Handles are a server's own (an epoch prefix tells a
// handle of an earlier run from a made-up one), bound to the client that
// was given one (see session.clientID), bounded in number and in idle
// time, and forgotten on request ([ForgetHandle]). When a handle goes, its
// session ends, as a legacy session's does ([Server.OnSessionEnd]).

// handleArg is the argument, and the member of structuredContent, that
// carries a handle.
const handleArg = "handle"

// HandleOptions configure the handles of [Server.OfferHandles]. The
// strings are the caller's words for what a handle holds; the protocol
// has none.
type HandleOptions struct {
	// Max bounds the handles kept at once, over all clients; minting one
	// more forgets the one unused longest.
	Max int
	// Idle forgets a handle no call has used for this long.
	Idle time.Duration
	// Argument describes the handle argument in modern tool schemas.
	Argument string
	// Note follows the handle in the text of the answer that mints it:
	// what to do with it.
	Note string
	// Lost ends the error that refuses an unknown or lost handle: what to
	// do instead, e.g. "give the unsaved text again, without handle".
	Lost string
}

// OfferHandles makes modern tool calls able to keep state: every tool's
// modern schemas gain the handle argument and result member, and a call
// that keeps state ([KeepState]) is answered with a handle. Legacy
// sessions are unchanged: they keep their state for as long as they last.
// Call it before serving.
func (s *Server) OfferHandles(opts HandleOptions) {
	var epoch [4]byte
	_, _ = rand.Read(epoch[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handles = &handleTable{
		srv: s, opts: opts, epoch: hex.EncodeToString(epoch[:]),
		byToken: map[string]*handleEntry{},
	}
}

// KeepState says that the modern tool call ctx belongs to leaves state,
// kept under its [SessionID], that later calls may want: unless the call
// fails, its answer carries a new handle for it. It does nothing for a
// legacy session (which keeps its state anyway), for a call that already
// runs under a handle, and when the server offers no handles.
func KeepState(ctx context.Context) {
	if ci := callFrom(ctx); ci != nil {
		ci.keep.Store(true)
	}
}

// Handle returns the handle the modern tool call ctx belongs to runs
// under, or "".
func Handle(ctx context.Context) string {
	if ci := callFrom(ctx); ci != nil && ci.handle != nil {
		return ci.handle.token
	}
	return ""
}

// ForgetHandle says that the handle the call ctx belongs to runs under is
// to be forgotten once the call ends: it is refused from then on, and its
// session ends when its last call has. It does nothing for a call under
// no handle.
func ForgetHandle(ctx context.Context) {
	if ci := callFrom(ctx); ci != nil {
		ci.forget.Store(true)
	}
}

// A handleTable holds a server's handles.
type handleTable struct {
	srv   *Server
	opts  HandleOptions
	epoch string // this run's prefix of every handle

	mu      sync.Mutex
	byToken map[string]*handleEntry
	uses    uint64 // orders the entries by last use
}

// A handleEntry is one handle: the session id it names, and who may use it.
type handleEntry struct {
	token     string
	client    string
	sessionID string

	// Guarded by the table's mu.
	busy     int       // calls running under it
	lastUse  uint64    // the table's use count when a call last ended
	deadline time.Time // when it expires, if idle
	timer    *time.Timer
	gone     bool // out of the table: its session ends when idle
}

// attach makes a call of client run under token, or says in one sentence
// why it may not.
func (t *handleTable) attach(token, client string) (*handleEntry, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	epoch, _, _ := strings.Cut(token, ".")
	e := t.byToken[token]
	switch {
	case e != nil && e.client == client:
		e.busy++
		e.timer.Stop()
		return e, ""
	case len(epoch) == len(t.epoch) && epoch != t.epoch:
		return nil, fmt.Sprintf("handle %s is from an earlier run of this server, which has restarted since, so what it held is gone: %s", shorten(token, 48), t.opts.Lost)
	}
	// A foreign handle is as unknown as a made-up one.
	return nil, fmt.Sprintf("handle %s is unknown: it was forgotten, unused for %s, evicted by newer ones (%d at most), or is another client's; %s", shorten(token, 48), roundDuration(t.opts.Idle), t.opts.Max, t.opts.Lost)
}

// roundDuration says d as people do: 30m, not 30m0s.
func roundDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// release ends a call under e; forget takes e out of the table.
func (t *handleTable) release(e *handleEntry, forget bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.busy--
	t.uses++
	e.lastUse = t.uses
	if forget && !e.gone {
		delete(t.byToken, e.token)
		e.gone = true
	}
	if e.busy > 0 {
		return
	}
	if e.gone {
		t.end(e)
		return
	}
	e.deadline = time.Now().Add(t.opts.Idle)
	e.timer.Reset(t.opts.Idle)
}

// mint makes a handle of client for sessionID, forgetting the one unused
// longest if the table is full; ok is false if every handle is in use.
func (t *handleTable) mint(sessionID, client string) (token string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byToken) >= t.opts.Max {
		var oldest *handleEntry
		for _, e := range t.byToken {
			if e.busy == 0 && (oldest == nil || e.lastUse < oldest.lastUse) {
				oldest = e
			}
		}
		if oldest == nil {
			return "", false
		}
		delete(t.byToken, oldest.token)
		oldest.gone = true
		t.end(oldest)
	}
	t.uses++
	e := &handleEntry{
		token: t.epoch + "." + newSessionID(), client: client, sessionID: sessionID,
		lastUse: t.uses, deadline: time.Now().Add(t.opts.Idle),
	}
	e.timer = time.AfterFunc(t.opts.Idle, func() { t.expire(e) })
	t.byToken[e.token] = e
	return e.token, true
}

// expire forgets e if it is still idle past its deadline (a call may have
// used it since the timer fired).
func (t *handleTable) expire(e *handleEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.gone || e.busy > 0 || time.Now().Before(e.deadline) {
		return
	}
	delete(t.byToken, e.token)
	e.gone = true
	t.end(e)
}

// end ends the session of e, which is out of the table and idle, apart:
// the hooks may take a while, and the table is locked. t.mu is held.
func (t *handleTable) end(e *handleEntry) {
	e.timer.Stop()
	go t.srv.sessionEnded(e.sessionID)
}

// takeHandle removes the handle argument from args, a JSON object, and
// returns it ("" if there is none).
func takeHandle(args json.RawMessage) (string, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return "", nil, errors.New("the arguments are not valid JSON")
	}
	raw, ok := m[handleArg]
	if !ok {
		return "", args, nil
	}
	h, isStr := stringValue(raw)
	if !isStr || h == "" {
		return "", nil, errors.New("invalid arguments: handle must be a handle from an earlier answer, a non-empty string")
	}
	delete(m, handleArg)
	rest, err := json.Marshal(m)
	if err != nil {
		return "", nil, err
	}
	return h, rest, nil
}

// callModernTool runs a modern tools/call under the handle its arguments
// name, if any, and mints a handle for the state it keeps, if it keeps
// some: the answer then carries the handle in structuredContent and at
// the end of its text.
func (ss *session) callModernTool(ctx context.Context, ci *callInfo, t *handleTable, name string, args json.RawMessage) (any, error) {
	token, args, err := takeHandle(args)
	if err != nil {
		return errorResult(err.Error(), nil), nil
	}
	client := ss.clientID()
	if token != "" {
		e, refused := t.attach(token, client)
		if refused != "" {
			return errorResult(refused, nil), nil
		}
		ci.sessionID, ci.handle, ci.kept = e.sessionID, e, true
		defer func() { t.release(e, ci.forget.Load()) }()
		return ss.srv.call(ctx, name, args, true)
	}
	res, err := ss.srv.call(ctx, name, args, true)
	raw, isResult := res.(json.RawMessage)
	if err != nil || !isResult || !ci.keep.Load() {
		// An error result is a *ToolResult: a failed call keeps nothing.
		return res, err
	}
	token, ok := t.mint(ci.sessionID, client)
	if !ok {
		return withText(raw, fmt.Sprintf("(none of this was kept: all %d handles are in use by calls running now)", t.opts.Max))
	}
	ci.kept = true
	if raw, err = withText(raw, "handle: "+token+" ("+t.opts.Note+")"); err != nil {
		return nil, err
	}
	return withStructured(raw, handleArg, token)
}

// withText adds a line to the first text block of a tool result.
func withText(res json.RawMessage, line string) (json.RawMessage, error) {
	var r ToolResult
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(res, &obj); err != nil {
		return nil, fmt.Errorf("decoding a tool result: %w", err)
	}
	if err := json.Unmarshal(obj["content"], &r.Content); err != nil {
		return nil, fmt.Errorf("decoding a tool result's content: %w", err)
	}
	for i := range r.Content {
		if r.Content[i].Type == "text" {
			r.Content[i].Text += "\n" + line
			break
		}
	}
	content, err := json.Marshal(r.Content)
	if err != nil {
		return nil, err
	}
	obj["content"] = content
	return marshalRaw(obj)
}

// withStructured adds a member to a tool result's structuredContent.
func withStructured(res json.RawMessage, key string, value any) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(res, &obj); err != nil {
		return nil, fmt.Errorf("decoding a tool result: %w", err)
	}
	sc, ok := obj["structuredContent"]
	if !ok {
		return res, nil
	}
	sc, err := withMember(sc, key, value)
	if err != nil {
		return nil, err
	}
	obj["structuredContent"] = sc
	return marshalRaw(obj)
}

func marshalRaw(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return data, nil
}
