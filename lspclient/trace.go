package lspclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// A Trace records the requests made to gopls under one context, for
// troubleshooting a slow or odd answer. It keeps each request's method,
// duration and outcome, never its parameters or result, which hold source
// text.
type Trace struct {
	mu   sync.Mutex
	reqs []TracedRequest
}

// TracedRequest is one request in a [Trace].
type TracedRequest struct {
	// Method is the LSP method; for workspace/executeCommand it is
	// followed by the command's name. A workspace-wide call's wait for
	// new packages to load (see [WorkspaceWide]), when it waited, is
	// recorded as "waiting for new packages to load".
	Method string
	// Duration runs from sending the request (or from waiting for a
	// gopls being restarted) to its answer.
	Duration time.Duration
	// Error is empty when gopls answered, else what went wrong, in a few
	// words: "timeout", "cancelled", "gopls exited", "gopls error -32602".
	// It never holds gopls's message, which may quote source.
	Error string
}

type traceKey struct{}

// WithTrace returns a context under which every request to gopls is
// recorded in the returned trace. A retry after gopls died is a request
// of its own.
func WithTrace(ctx context.Context) (context.Context, *Trace) {
	t := &Trace{}
	return context.WithValue(ctx, traceKey{}, t), t
}

// Requests returns the requests recorded so far, in the order they ended.
func (t *Trace) Requests() []TracedRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.reqs)
}

// record adds one request to the trace ctx carries, if any.
func record(ctx context.Context, method string, began time.Time, err error) {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	if t == nil {
		return
	}
	r := TracedRequest{Method: method, Duration: time.Since(began), Error: outcome(ctx, err)}
	t.mu.Lock()
	t.reqs = append(t.reqs, r)
	t.mu.Unlock()
}

// outcome names the kind of a request's failure without its text.
func outcome(ctx context.Context, err error) string {
	var re *ResponseError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return fmt.Sprintf("gopls error %d", re.Code)
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case ctx.Err() != nil, errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, ErrCrashLoop):
		return "crash loop"
	case errors.Is(err, ErrClosed):
		return "closed"
	case errors.Is(err, ErrExited):
		return "gopls exited"
	}
	return "failed"
}
