package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
)

// callKey is the context key of a request's *callInfo.
type callKey struct{}

// callInfo is what a handler's context knows of its request: the session
// and, when the client asked for progress, the token to report it under.
type callInfo struct {
	ss    *session
	out   outbox          // where the request is answered
	id    json.RawMessage // the request's id
	token json.RawMessage // nil when the client asked for no progress
	// version is the protocol version the request is served under: the
	// session's, or the one a modern request names.
	version string
	modern  bool // served under the modern, stateless revisions
	// sessionID is the id the call's state is kept under: the session's,
	// or for a modern request one of its own, as nothing carries over
	// between modern requests.
	sessionID string
	// logq, for a modern request that set a log level, takes the log
	// messages at logLevel and above for it; nil otherwise.
	logq     chan *notification
	logReady chan struct{} // signals logq has messages
	logLevel LogLevel
	// keep and forget are what the tool asked of the call's state
	// (KeepState, ForgetHandle); handle is the handle it runs under, if
	// any, and kept says its state outlives it (under handle, or a handle
	// minted for it). Set on the call's own goroutine.
	keep, forget atomic.Bool
	handle       *handleEntry
	kept         bool

	mu       sync.Mutex
	finished bool          // the response is about to be written
	done     chan struct{} // closed by finish
	progress float64       // last value sent
}

// callLogQueue bounds the log messages waiting to go out on one modern
// request's stream; beyond it they are dropped.
const callLogQueue = 32

func newCallInfo(ss *session, out outbox, id, params json.RawMessage, modern *modernRequest) *callInfo {
	ci := &callInfo{
		ss: ss, out: out, id: id, token: progressToken(params),
		version: ss.negotiated(), sessionID: ss.id, done: make(chan struct{}),
	}
	if modern != nil {
		ci.version, ci.modern = modern.version, true
		ci.sessionID = newSessionID()
		if modern.wantsLogs {
			ci.logq = make(chan *notification, callLogQueue)
			ci.logReady = make(chan struct{}, 1)
			ci.logLevel = modern.logLevel
			go ci.writeLogs()
		}
	}
	return ci
}

// writeLogs sends the request's log messages as they come, until it is
// answered; finish sends those still queued then.
func (ci *callInfo) writeLogs() {
	for {
		select {
		case <-ci.logReady:
			ci.mu.Lock()
			ci.flushLogs()
			ci.mu.Unlock()
		case <-ci.done:
			return
		}
	}
}

// flushLogs writes the log messages queued. ci.mu is held, so that
// every message taken from the queue is written before the response.
func (ci *callInfo) flushLogs() {
	for {
		select {
		case n := <-ci.logq:
			if data := ci.ss.encodeNotification(n.Method, n.Params); data != nil {
				_ = ci.out.notify(data)
			}
		default:
			return
		}
	}
}

// queueLog queues a log message for the request, or drops it if the
// queue is full.
func (ci *callInfo) queueLog(n *notification) {
	select {
	case ci.logq <- n:
	default:
		return
	}
	select {
	case ci.logReady <- struct{}{}:
	default:
	}
}

// notify sends a notification about the request on its stream, unless
// it has been answered.
func (ci *callInfo) notify(method string, params any) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	// Holding mu while writing orders the notification before finish,
	// and so before the response.
	if ci.finished {
		return
	}
	if data := ci.ss.encodeNotification(method, params); data != nil {
		_ = ci.out.notify(data)
	}
}

func callFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callKey{}).(*callInfo)
	return ci
}

// SessionID returns the id of the session whose request ctx belongs to, or
// "" outside a request. Sessions sharing one server have distinct ids, so
// per-session state can be keyed by it. A request of the modern,
// stateless revisions is a session of its own: its id is fresh, and the
// session ends when it is answered; or, under a handle (see
// [Server.OfferHandles]), the id is the handle's.
func SessionID(ctx context.Context) string {
	if ci := callFrom(ctx); ci != nil {
		return ci.sessionID
	}
	return ""
}

// inputKey is the context key of a tool call's decoded arguments.
type inputKey struct{}

// ToolInput returns the arguments of the tool call ctx belongs to, validated
// against the tool's input schema and decoded into its input type (a
// pointer to the In of [AddTool]), or nil outside a tool call. Middleware
// uses it to learn what a call is about to do before it runs: decisions
// are taken from the decoded value, which is the same however the JSON
// spelled it (escapes in keys or values, the order of members), never from
// the raw bytes.
func ToolInput(ctx context.Context) any {
	return ctx.Value(inputKey{})
}

// ProgressRequested reports whether the request ctx belongs to carries a
// progress token, so that work done only to report progress can be
// skipped when nobody listens.
func ProgressRequested(ctx context.Context) bool {
	ci := callFrom(ctx)
	return ci != nil && ci.token != nil
}

// ReportProgress sends a notifications/progress for the request ctx
// belongs to, with message saying what is happening. Progress values
// increase with each report. It does nothing if the client asked for no
// progress or the request has been answered; it is safe to call from any
// goroutine, and it waits while the notification is written.
func ReportProgress(ctx context.Context, message string) {
	ci := callFrom(ctx)
	if ci == nil || ci.token == nil {
		return
	}
	ci.mu.Lock()
	defer ci.mu.Unlock()
	// Holding mu while writing orders this notification before finish,
	// and so before the response.
	if ci.finished || ctx.Err() != nil {
		return
	}
	ci.progress++
	p := map[string]any{"progressToken": ci.token, "progress": ci.progress}
	if ci.version >= version20250326 {
		p["message"] = shorten(message, 200)
	}
	if data := ci.ss.encodeNotification("notifications/progress", p); data != nil {
		_ = ci.out.notify(data)
	}
}

// finish marks the request answered: no progress is sent after it.
func (ci *callInfo) finish() {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	if !ci.finished {
		if ci.logq != nil {
			ci.flushLogs()
		}
		ci.finished = true
		close(ci.done)
	}
}

// progressToken extracts params._meta.progressToken, if it is a string or
// an integer.
func progressToken(params json.RawMessage) json.RawMessage {
	if isNull(params) {
		return nil
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || !validID(p.Meta.ProgressToken) {
		return nil
	}
	return p.Meta.ProgressToken
}
