package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"
)

// Session states. A session answers tools, resources and prompts only once
// it is ready: after initialize and notifications/initialized.
const (
	stateNew = iota
	stateInitializing
	stateReady
)

// A session is one client connection: its lifecycle state, its negotiated
// version and its in-flight calls.
type session struct {
	srv *Server
	out *lineWriter
	id  string

	mu       sync.Mutex
	state    int
	version  string
	inflight map[string]*call // keyed by the raw JSON id

	sem chan struct{}  // bounds concurrent handlers
	wg  sync.WaitGroup // counts running handlers
}

// A call is one request being handled.
type call struct {
	cancel    context.CancelFunc
	cancelled bool // by notifications/cancelled: send no response
}

func newSession(srv *Server, out *lineWriter, id string) *session {
	return &session{
		srv:      srv,
		out:      out,
		id:       id,
		inflight: make(map[string]*call),
		sem:      make(chan struct{}, srv.opts.MaxInFlight),
	}
}

type readResult struct {
	line []byte
	err  error
}

func (ss *session) serve(ctx context.Context, lr *lineReader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The reader runs apart so that a cancelled ctx ends the session even
	// while a read blocks. Each line is copied: the reader reuses its buffer.
	lines := make(chan readResult)
	go func() {
		defer close(lines)
		for {
			line, err := lr.next()
			select {
			case lines <- readResult{slices.Clone(line), err}:
			case <-ctx.Done():
				return
			}
			if err != nil && err != errLineTooLong {
				return
			}
		}
	}()

	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		case r, ok := <-lines:
			if !ok {
				break loop
			}
			if r.err == errLineTooLong {
				ss.writeError(nil, newError(CodeInvalidRequest,
					fmt.Sprintf("Invalid Request: message exceeds %d bytes", ss.srv.opts.MaxMessageBytes)))
			} else if r.err == io.EOF {
				break loop
			} else if r.err != nil {
				err = fmt.Errorf("reading input: %w", r.err)
				break loop
			} else {
				ss.handleLine(ctx, r.line)
			}
		}
	}
	if err != nil {
		// Cancelled: the calls in flight are abandoned.
		cancel()
	}
	ss.wg.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// handleLine decodes and dispatches one message. Lifecycle messages are
// handled in order on the reading goroutine; other requests run
// concurrently, bounded by the session's semaphore.
func (ss *session) handleLine(ctx context.Context, line []byte) {
	trimmed := trimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		ss.writeError(nil, newError(CodeInvalidRequest, "Invalid Request: batches are not supported"))
		return
	}
	var msg wireMessage
	if err := json.Unmarshal(line, &msg); err != nil || len(trimmed) == 0 || trimmed[0] != '{' {
		ss.writeError(nil, newError(CodeParseError, "Parse error"))
		return
	}
	hasID := len(msg.ID) > 0
	if msg.Method == nil {
		// A response to a request of ours (we send none) or junk.
		if !hasID && isNull(msg.Result) && isNull(msg.Error) {
			ss.writeError(nil, newError(CodeInvalidRequest, "Invalid Request: no method"))
		}
		return
	}
	if !hasID {
		ss.handleNotification(ctx, *msg.Method, msg.Params)
		return
	}
	if !validID(msg.ID) {
		ss.writeError(nil, newError(CodeInvalidRequest, "Invalid Request: id must be a string or an integer"))
		return
	}
	id := msg.ID
	if string(msg.JSONRPC) != `"2.0"` {
		ss.writeError(id, newError(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`))
		return
	}
	if !isNull(msg.Params) && trimSpace(msg.Params)[0] != '{' {
		ss.writeError(id, newError(CodeInvalidParams, "Invalid params: params must be an object"))
		return
	}
	method := *msg.Method
	switch method {
	case "ping":
		ss.writeResult(id, struct{}{})
		return
	case "initialize":
		res, err := ss.initialize(msg.Params)
		ss.reply(id, res, err)
		return
	}
	ss.mu.Lock()
	ready := ss.state == stateReady
	ss.mu.Unlock()
	if !ready {
		ss.writeError(id, newError(CodeNotInitialized, "Server not initialized"))
		return
	}
	h := ss.handlerFor(method)
	if h == nil {
		ss.writeError(id, newError(CodeMethodNotFound, "Method not found"))
		return
	}
	ss.start(ctx, id, method, msg.Params, h)
}

// start runs h for the request id in its own goroutine.
func (ss *session) start(ctx context.Context, id json.RawMessage, method string, params json.RawMessage, h methodHandler) {
	ctx, cancel := context.WithCancel(ctx)
	c := &call{cancel: cancel}
	key := string(id)
	ss.mu.Lock()
	if _, dup := ss.inflight[key]; dup {
		ss.mu.Unlock()
		cancel()
		ss.writeError(id, newError(CodeInvalidRequest, "Invalid Request: id is already in use"))
		return
	}
	ss.inflight[key] = c
	ss.mu.Unlock()

	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		defer cancel()
		select {
		case ss.sem <- struct{}{}:
		case <-ctx.Done():
		}
		var res any
		var err error
		if ctx.Err() == nil {
			res, err = ss.safeCall(ctx, method, params, h)
			<-ss.sem
		} else {
			err = ctx.Err()
		}
		ss.mu.Lock()
		delete(ss.inflight, key)
		suppressed := c.cancelled
		ss.mu.Unlock()
		if suppressed {
			return
		}
		ss.reply(id, res, err)
	}()
}

// safeCall runs h, turning a panic into an internal error whose log line
// names the panic's type but holds none of the request's content.
func (ss *session) safeCall(ctx context.Context, method string, params json.RawMessage, h methodHandler) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			ss.srv.log.Error("handler panicked", "method", method, "panic", fmt.Sprintf("%T", r),
				"stack", string(debug.Stack()))
			res, err = nil, newError(CodeInternalError, "Internal error")
		}
	}()
	return h(ctx, ss, params)
}

func (ss *session) handleNotification(ctx context.Context, method string, params json.RawMessage) {
	switch method {
	case "notifications/initialized":
		ss.mu.Lock()
		if ss.state == stateInitializing {
			ss.state = stateReady
		}
		ss.mu.Unlock()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) != nil || !validID(p.RequestID) {
			return
		}
		ss.mu.Lock()
		if c, ok := ss.inflight[string(p.RequestID)]; ok {
			c.cancelled = true
			c.cancel()
		}
		ss.mu.Unlock()
	}
	// Other notifications are ignored, as the protocol requires.
}

// reply answers a request with res or err. An *Error keeps its code; any
// other error is logged by type and answered -32603.
func (ss *session) reply(id json.RawMessage, res any, err error) {
	if err == nil {
		ss.writeResult(id, res)
		return
	}
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		ss.writeError(id, rpcErr)
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		ss.writeError(id, newError(CodeInternalError, "Internal error: the request was cancelled"))
		return
	}
	ss.srv.log.Error("request failed", "type", fmt.Sprintf("%T", err), "error", shorten(err.Error(), 200))
	ss.writeError(id, newError(CodeInternalError, "Internal error"))
}

func (ss *session) writeResult(id json.RawMessage, res any) {
	ss.write(response{JSONRPC: "2.0", ID: id, Result: res})
}

func (ss *session) writeError(id json.RawMessage, e *Error) {
	ss.write(response{JSONRPC: "2.0", ID: id, Error: e})
}

func (ss *session) notify(method string, params any) {
	ss.write(notification{JSONRPC: "2.0", Method: method, Params: params})
}

func (ss *session) write(msg any) {
	data, err := json.Marshal(msg)
	if err != nil {
		ss.srv.log.Error("encoding a message failed", "type", fmt.Sprintf("%T", err))
		return
	}
	if err := ss.out.write(data); err != nil {
		ss.srv.log.Debug("writing a message failed", "error", err)
	}
}

// negotiated returns the protocol version agreed at initialize.
func (ss *session) negotiated() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// atLeast reports whether the negotiated version is v or newer. Versions
// are dates, so they compare as strings.
func (ss *session) atLeast(v string) bool { return ss.negotiated() >= v }

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
