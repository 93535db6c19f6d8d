package mcp

import (
	"context"
	"encoding/json"
	"sync"
)

// callKey is the context key of a request's *callInfo.
type callKey struct{}

// callInfo is what a handler's context knows of its request: the session
// and, when the client asked for progress, the token to report it under.
type callInfo struct {
	ss    *session
	out   outbox          // where the request is answered
	token json.RawMessage // nil when the client asked for no progress

	mu       sync.Mutex
	finished bool    // the response is about to be written
	progress float64 // last value sent
}

func callFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callKey{}).(*callInfo)
	return ci
}

// SessionID returns the id of the session whose request ctx belongs to, or
// "" outside a request. Sessions sharing one server have distinct ids, so
// per-session state can be keyed by it.
func SessionID(ctx context.Context) string {
	if ci := callFrom(ctx); ci != nil {
		return ci.ss.id
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
	if ci.ss.atLeast(version20250326) {
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
	ci.finished = true
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
