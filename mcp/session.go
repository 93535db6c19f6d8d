package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"unicode/utf8"
)

// Session states. A session answers tools, resources and prompts only once
// it is ready: after initialize and notifications/initialized.
const (
	stateNew = iota
	stateInitializing
	stateReady
)

// logQueueSize bounds the log notifications waiting to be written to one
// session; beyond it they are dropped, so that a slow client never stalls
// whoever logs.
const logQueueSize = 256

// A session is one client connection: its lifecycle state, its negotiated
// version, its log level and its in-flight calls.
type session struct {
	srv *Server
	out *lineWriter
	id  string

	mu       sync.Mutex
	state    int
	version  string
	logLevel LogLevel
	inflight map[string]*call // keyed by the raw JSON id

	sem     chan struct{}  // bounds concurrent handlers
	pending chan struct{}  // bounds handlers running or waiting for sem
	wg      sync.WaitGroup // counts running handlers
	logq    chan *notification
}

// A call is one request being handled.
type call struct {
	cancel    context.CancelFunc
	cancelled bool // by notifications/cancelled: send no response
}

func newSession(srv *Server, out *lineWriter) *session {
	return &session{
		srv:      srv,
		out:      out,
		id:       newSessionID(),
		logLevel: LevelWarning,
		inflight: make(map[string]*call),
		sem:      make(chan struct{}, srv.opts.MaxInFlight),
		pending:  make(chan struct{}, 8*srv.opts.MaxInFlight),
		logq:     make(chan *notification, logQueueSize),
	}
}

// newSessionID returns an unguessable id, as Streamable HTTP requires of
// session ids; stdio sessions get one too so that per-session state never
// collides.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type readResult struct {
	line []byte
	err  error
}

func (ss *session) serve(ctx context.Context, lr *lineReader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss.srv.addSession(ss)
	defer ss.srv.removeSession(ss)

	// Log notifications are written apart, so that Server.Log never waits
	// for the client.
	logDone := make(chan struct{})
	var logWG sync.WaitGroup
	logWG.Go(func() { ss.writeLogs(logDone) })
	defer func() {
		close(logDone)
		logWG.Wait()
	}()

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
			switch {
			case r.err == errLineTooLong:
				ss.writeError(nil, newError(CodeInvalidRequest,
					fmt.Sprintf("Invalid Request: message exceeds %d bytes", ss.srv.opts.MaxMessageBytes)))
			case r.err == io.EOF:
				break loop
			case r.err != nil:
				err = fmt.Errorf("reading input: %w", r.err)
				break loop
			default:
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
	if !utf8.Valid(trimmed) || !json.Valid(trimmed) {
		ss.writeError(nil, newError(CodeParseError, "Parse error"))
		return
	}
	switch trimmed[0] {
	case '{':
	case '[':
		ss.writeError(nil, newError(CodeInvalidRequest, "Invalid Request: batches are not supported"))
		return
	default:
		ss.writeError(nil, newError(CodeInvalidRequest, "Invalid Request: a message must be a JSON object"))
		return
	}
	var msg wireMessage
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		ss.writeError(nil, newError(CodeParseError, "Parse error"))
		return
	}
	hasID := len(msg.ID) > 0
	if isNull(msg.Method) {
		if !isNull(msg.Result) || !isNull(msg.Error) {
			// A response to a request of ours; we send none.
			return
		}
		var id json.RawMessage
		if validID(msg.ID) {
			id = msg.ID
		}
		ss.writeError(id, newError(CodeInvalidRequest, "Invalid Request: method is missing"))
		return
	}
	method, methodOK := stringValue(msg.Method)
	jsonrpcOK := string(trimSpace(msg.JSONRPC)) == `"2.0"`
	if !hasID {
		// A notification is never answered, however wrong it is.
		if methodOK && jsonrpcOK {
			ss.handleNotification(method, msg.Params)
		}
		return
	}
	if !validID(msg.ID) {
		ss.writeError(nil, newError(CodeInvalidRequest, "Invalid Request: id must be a string or an integer"))
		return
	}
	id := msg.ID
	switch {
	case !jsonrpcOK:
		ss.writeError(id, newError(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`))
		return
	case !methodOK:
		ss.writeError(id, newError(CodeInvalidRequest, "Invalid Request: method must be a string"))
		return
	case !isNull(msg.Params) && !isObject(msg.Params):
		ss.writeError(id, InvalidParams("params must be an object"))
		return
	}
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
	h := handlerFor(method)
	if h == nil {
		ss.writeError(id, newError(CodeMethodNotFound, "Method not found"))
		return
	}
	ss.start(ctx, id, method, msg.Params, h)
}

// start runs h for the request id in its own goroutine. When too many
// requests are pending it first waits for one to end, which stops the
// session reading: backpressure on a client that floods it.
func (ss *session) start(ctx context.Context, id json.RawMessage, method string, params json.RawMessage, h methodHandler) {
	key := string(id)
	ss.mu.Lock()
	_, dup := ss.inflight[key]
	ss.mu.Unlock()
	if dup {
		ss.writeError(id, newError(CodeInvalidRequest, "Invalid Request: id is already in use"))
		return
	}
	select {
	case ss.pending <- struct{}{}:
	case <-ctx.Done():
		return
	}

	ctx, cancel := context.WithCancel(ctx)
	c := &call{cancel: cancel}
	ci := &callInfo{ss: ss, token: progressToken(params)}
	ctx = context.WithValue(ctx, callKey{}, ci)
	ss.mu.Lock()
	ss.inflight[key] = c
	ss.mu.Unlock()

	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		defer func() { <-ss.pending }()
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
		// No progress may follow the response.
		ci.finish()
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
			// A runtime error's text is the runtime's own (an index out of
			// range, a nil dereference); any other panic value may carry
			// what the handler was working on, so only its type is kept.
			attrs := []any{"method", method, "type", fmt.Sprintf("%T", r), "stack", string(debug.Stack())}
			if re, ok := r.(runtime.Error); ok {
				attrs = append(attrs, "error", shorten(re.Error(), 120))
			}
			ss.srv.log.Error("handler panicked", attrs...)
			res, err = nil, newError(CodeInternalError, "Internal error")
		}
	}()
	return h(ctx, ss, params)
}

func (ss *session) handleNotification(method string, params json.RawMessage) {
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
// other error is logged by type and a short message, and answered -32603.
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
	ss.srv.log.Error("request failed", "type", fmt.Sprintf("%T", err), "error", shorten(err.Error(), 120))
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
		if r, ok := msg.(response); ok && r.ID != nil {
			// The request still gets an answer.
			data, _ = json.Marshal(response{JSONRPC: "2.0", ID: r.ID, Error: newError(CodeInternalError, "Internal error")})
		} else {
			return
		}
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
