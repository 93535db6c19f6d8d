package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
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

// An outbox takes what a session sends about one incoming message: for a
// request, notifications about it while it runs (progress), then its
// response. Over stdio every message goes down the same stream; over HTTP
// each POST has its own outbox, its HTTP response.
type outbox interface {
	// notify sends a notification about the request.
	notify(msg []byte) error
	// respond sends the response, which ends the exchange. identified is
	// false for an error about a message whose id could not be read. A
	// nil msg means no response will be sent: the client cancelled the
	// request, or the session ended before it began.
	respond(msg []byte, identified bool) error
}

// A notifier takes the messages a session sends on its own account, tied
// to no request: log messages.
type notifier interface {
	notify(msg []byte) error
}

// A session is one client connection: its lifecycle state, its negotiated
// version, its log level and its in-flight calls. The transport decides
// where its messages go: events takes the session's own notifications,
// and each incoming message comes with the outbox for its answers.
type session struct {
	srv    *Server
	events notifier
	id     string
	// client names who is at the other end, for the handles a modern
	// request may use (see clientID); set by the transport before the
	// session serves.
	client string
	// conf, if set, is what the session is served with beyond the
	// server's options (see LocalOptions.Configure); set by the
	// transport before the session serves.
	conf *SessionConfig

	mu       sync.Mutex
	state    int
	version  string
	logLevel LogLevel
	inflight map[string]*call // keyed by idKey
	// draining is set when the session stops taking requests before it
	// ends (see serve); only the goroutine that calls handleLine sets it.
	draining atomic.Bool

	sem     chan struct{}  // bounds concurrent handlers
	pending chan struct{}  // bounds handlers running or waiting for sem
	wg      sync.WaitGroup // counts running handlers
	logq    chan *notification

	// logCalls are the modern calls running that asked for log messages
	// (guarded by mu); listens counts the subscriptions/listen streams
	// open.
	logCalls map[*callInfo]struct{}
	listens  int
	// listenDone is closed when the session stops serving, which ends
	// its listen streams gracefully.
	listenDone chan struct{}
	listenOnce sync.Once
}

// maxListens bounds the subscriptions/listen streams of one session: each
// holds a request open for as long as the client likes.
const maxListens = 4

// listenEnd returns the channel closed when the session's listen streams
// are to end.
func (ss *session) listenEnd() <-chan struct{} { return ss.listenDone }

// endListens ends the session's listen streams, each answered with the
// graceful closing result.
func (ss *session) endListens() { ss.listenOnce.Do(func() { close(ss.listenDone) }) }

// A call is one request from the moment its id is reserved — before it
// waits for a place among the requests pending — until its response is
// decided. notifications/cancelled finds it at every stage: waiting for a
// place, waiting for a handler slot, running, or shaping its answer.
type call struct {
	cancel    context.CancelFunc
	cancelled bool // by notifications/cancelled: send no response
}

// idKey is the key of a request id in the session's table: the id's value,
// not its spelling, so that "a" and "\u0061" name the same request, as
// JSON says they do. id is valid (see validID).
func idKey(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			if b, err := json.Marshal(s); err == nil {
				return string(b)
			}
		}
		return string(id)
	}
	// An integer: -0 is 0.
	if n, ok := new(big.Int).SetString(string(id), 10); ok {
		return n.String()
	}
	return string(id)
}

func newSession(srv *Server, events notifier) *session {
	return &session{
		srv:      srv,
		events:   events,
		id:       newSessionID(),
		logLevel: LevelWarning,
		inflight: make(map[string]*call),
		sem:      make(chan struct{}, srv.opts.MaxInFlight),
		pending:  make(chan struct{}, 8*srv.opts.MaxInFlight),
		logq:     make(chan *notification, logQueueSize),
		logCalls: make(map[*callInfo]struct{}),

		listenDone: make(chan struct{}),
	}
}

// clientID names the client of the session: a handle minted for one
// client is refused to any other. A transport that can tell clients
// apart sets ss.client (the bearer token over HTTP, the user on a local
// socket, the connection on stdio); otherwise each session is a client.
func (ss *session) clientID() string {
	if ss.client != "" {
		return ss.client
	}
	return "session:" + ss.id
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

// open makes the session known to the server, so that it receives log
// messages, and starts writing them. The returned function undoes it once
// every handler has ended, then tells the server's session-end hooks.
func (ss *session) open() (closeSession func()) {
	ss.srv.addSession(ss)
	// Log notifications are written apart, so that Server.Log never waits
	// for the client.
	logDone := make(chan struct{})
	var logWG sync.WaitGroup
	logWG.Go(func() { ss.writeLogs(logDone) })
	return func() {
		ss.wg.Wait()
		ss.srv.removeSession(ss)
		close(logDone)
		logWG.Wait()
		ss.srv.sessionEnded(ss.id)
	}
}

// serve runs a session over a stream of lines, each answered on out. At
// the end of the input it answers the calls already received, within the
// drain timeout if there is one. When ctx
// ends it drains: it reads on, answering requests with CodeShuttingDown
// (cancellations still stop calls), and returns when the calls in flight
// have been answered; the drain timeout cancels those still running.
func (ss *session) serve(ctx context.Context, lr *lineReader, out outbox) error {
	// Calls do not end with ctx but with the drain.
	callCtx, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCalls()
	stopDrainTimer := context.AfterFunc(ctx, func() {
		time.AfterFunc(ss.srv.opts.DrainTimeout, cancelCalls)
	})
	defer stopDrainTimer()
	closeSession := ss.open()
	defer closeSession()

	// The reader runs apart so that the session can drain while a read
	// blocks. Each line is copied: the reader reuses its buffer.
	lines := make(chan readResult)
	go func() {
		defer close(lines)
		for {
			line, err := lr.next()
			select {
			case lines <- readResult{slices.Clone(line), err}:
			case <-callCtx.Done():
				return
			}
			if err != nil && err != errLineTooLong {
				return
			}
		}
	}()

	var err error
	stop := ctx.Done()
	var idle chan struct{} // closed when the calls in flight have ended
loop:
	for {
		select {
		case <-stop:
			stop = nil
			// Set here, where lines are handled, so that no call starts
			// after the wait for the calls in flight has begun.
			ss.draining.Store(true)
			ss.endListens()
			idle = make(chan struct{})
			go func() {
				ss.wg.Wait()
				close(idle)
			}()
		case <-idle:
			break loop
		case r, ok := <-lines:
			if !ok {
				break loop
			}
			switch {
			case r.err == errLineTooLong:
				ss.writeError(out, nil, newError(CodeInvalidRequest,
					fmt.Sprintf("Invalid Request: message exceeds %d bytes", ss.srv.opts.MaxMessageBytes)))
			case r.err == io.EOF:
				// The client is gone: the calls in flight get the drain's
				// bound, as after a signal, so that one waiting long
				// (for the workspace to load, say) cannot keep the
				// process alive. Without a drain timeout they are
				// answered however long they take.
				if d := ss.srv.opts.DrainTimeout; d > 0 {
					time.AfterFunc(d, cancelCalls)
				}
				ss.endListens()
				break loop
			case r.err != nil:
				err = fmt.Errorf("reading input: %w", r.err)
				break loop
			default:
				ss.handleLine(callCtx, r.line, out)
			}
		}
	}
	if err != nil {
		// The input failed: the calls in flight are abandoned.
		cancelCalls()
	}
	ss.wg.Wait()
	return err
}

// handleLine decodes and dispatches one message, whose answers go to out.
// Lifecycle messages are answered before it returns; other requests run
// concurrently, bounded by the session's semaphore, and it reports true
// when it has started one: out.respond follows later, exactly once.
// Nothing at all is sent to out for notifications and responses.
func (ss *session) handleLine(ctx context.Context, line []byte, out outbox) (started bool) {
	trimmed := trimSpace(line)
	if !utf8.Valid(trimmed) || !json.Valid(trimmed) {
		ss.writeError(out, nil, newError(CodeParseError, "Parse error"))
		return false
	}
	switch trimmed[0] {
	case '{':
	case '[':
		ss.writeError(out, nil, newError(CodeInvalidRequest, "Invalid Request: batches are not supported"))
		return false
	default:
		ss.writeError(out, nil, newError(CodeInvalidRequest, "Invalid Request: a message must be a JSON object"))
		return false
	}
	var msg wireMessage
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		ss.writeError(out, nil, newError(CodeParseError, "Parse error"))
		return false
	}
	hasID := len(msg.ID) > 0
	if isNull(msg.Method) {
		if !isNull(msg.Result) || !isNull(msg.Error) {
			// A response to a request of ours; we send none.
			return false
		}
		var id json.RawMessage
		if validID(msg.ID) {
			id = msg.ID
		}
		ss.writeError(out, id, newError(CodeInvalidRequest, "Invalid Request: method is missing"))
		return false
	}
	method, methodOK := stringValue(msg.Method)
	jsonrpcOK := string(trimSpace(msg.JSONRPC)) == `"2.0"`
	if !hasID {
		// A notification is never answered, however wrong it is.
		if methodOK && jsonrpcOK {
			ss.handleNotification(method, msg.Params)
		}
		return false
	}
	if !validID(msg.ID) {
		ss.writeError(out, nil, newError(CodeInvalidRequest, "Invalid Request: id must be a string or an integer"))
		return false
	}
	id := msg.ID
	switch {
	case !jsonrpcOK:
		ss.writeError(out, id, newError(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`))
		return false
	case !methodOK:
		ss.writeError(out, id, newError(CodeInvalidRequest, "Invalid Request: method must be a string"))
		return false
	case !isNull(msg.Params) && !isObject(msg.Params):
		ss.writeError(out, id, InvalidParams("params must be an object"))
		return false
	}
	if handled, started := ss.handleModern(ctx, id, method, msg.Params, out); handled {
		return started
	}
	switch {
	case method == "ping":
		ss.writeResult(out, id, struct{}{})
		return false
	case ss.draining.Load():
		ss.writeError(out, id, newError(CodeShuttingDown, "Server shutting down: it takes no new requests"))
		return false
	}
	switch method {
	case "initialize":
		res, err := ss.initialize(msg.Params)
		ss.reply(out, id, res, err)
		return false
	}
	ss.mu.Lock()
	ready := ss.state == stateReady
	ss.mu.Unlock()
	if !ready {
		ss.writeError(out, id, newError(CodeNotInitialized, "Server not initialized"))
		return false
	}
	h := handlerFor(method)
	if h == nil {
		ss.writeError(out, id, newError(CodeMethodNotFound, "Method not found"))
		return false
	}
	return ss.start(ctx, id, method, msg.Params, h, out, nil)
}

// start runs h for the request id in its own goroutine, answering on out.
// When too many requests are pending it first waits for one to end, which
// stops the session reading: backpressure on a client that floods it. It
// reports whether it took the request on: out.respond follows. modern is
// nil for a request of the session's negotiated version.
func (ss *session) start(ctx context.Context, id json.RawMessage, method string, params json.RawMessage, h methodHandler, out outbox, modern *modernRequest) bool {
	// A listen stream holds its request for as long as the client likes:
	// it takes no handler slot, and a connection has few of them.
	isListen := modern != nil && method == "subscriptions/listen"
	if isListen {
		ss.mu.Lock()
		full := ss.listens >= maxListens
		if !full {
			ss.listens++
		}
		ss.mu.Unlock()
		if full {
			ss.writeError(out, id, newError(CodeInvalidRequest, fmt.Sprintf("Invalid Request: %d listen streams are open, the most one connection keeps; cancel one first", maxListens)))
			return false
		}
	}
	unlisten := func() {
		if isListen {
			ss.mu.Lock()
			ss.listens--
			ss.mu.Unlock()
		}
	}
	key := idKey(id)
	ctx, cancel := context.WithCancel(ctx)
	c := &call{cancel: cancel}
	ss.mu.Lock()
	_, dup := ss.inflight[key]
	if !dup {
		// Reserved at once, with the call a cancellation finds: over
		// HTTP, requests and cancellations arrive concurrently.
		ss.inflight[key] = c
	}
	ss.mu.Unlock()
	if dup {
		cancel()
		unlisten()
		ss.writeError(out, id, newError(CodeInvalidRequest, "Invalid Request: id is already in use"))
		return false
	}
	select {
	case ss.pending <- struct{}{}:
	case <-ctx.Done():
		// Cancelled while it waited, or the session is ending: either
		// way no answer, and the handler never runs.
		ss.mu.Lock()
		delete(ss.inflight, key)
		ss.mu.Unlock()
		cancel()
		unlisten()
		_ = out.respond(nil, true)
		return true
	}

	ci := newCallInfo(ss, out, id, params, modern)
	ctx = context.WithValue(ctx, callKey{}, ci)
	if ci.logq != nil {
		ss.mu.Lock()
		ss.logCalls[ci] = struct{}{}
		ss.mu.Unlock()
	}

	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		defer func() { <-ss.pending }()
		defer cancel()
		defer unlisten()
		if !isListen {
			select {
			case ss.sem <- struct{}{}:
			case <-ctx.Done():
			}
		}
		var res any
		var err error
		if ctx.Err() == nil {
			res, err = ss.safeCall(ctx, method, params, h)
			if !isListen {
				<-ss.sem
			}
		} else {
			// Cancelled before it started: nothing of it ran.
			err = ctx.Err()
		}
		if ci.logq != nil {
			ss.mu.Lock()
			delete(ss.logCalls, ci)
			ss.mu.Unlock()
		}
		// No progress or log message may follow the response.
		ci.finish()
		if modern != nil {
			// Nothing a modern call left under its own session id
			// outlives it, unless a handle names it: the next call
			// starts afresh.
			if !ci.kept {
				defer ss.srv.sessionEnded(ci.sessionID)
			}
			if err == nil {
				res, err = ss.modernResult(ci, method, params, res)
			}
		}
		// The response is decided here: a cancellation that arrives
		// after this is late, and ignored.
		ss.mu.Lock()
		delete(ss.inflight, key)
		suppressed := c.cancelled
		ss.mu.Unlock()
		if suppressed {
			_ = out.respond(nil, true)
			return
		}
		ss.reply(out, id, res, err)
	}()
	return true
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
		if c := ss.inflight[idKey(p.RequestID)]; c != nil {
			c.cancelled = true
			c.cancel()
		}
		ss.mu.Unlock()
	}
	// Other notifications are ignored, as the protocol requires.
}

// reply answers a request on out with res or err. An *Error keeps its
// code; any other error is logged by type and a short message, and
// answered -32603.
func (ss *session) reply(out outbox, id json.RawMessage, res any, err error) {
	if err == nil {
		ss.writeResult(out, id, res)
		return
	}
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		ss.writeError(out, id, rpcErr)
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		ss.writeError(out, id, newError(CodeInternalError, "Internal error: the request was cancelled"))
		return
	}
	ss.srv.logInternal("request failed", err)
	ss.writeError(out, id, newError(CodeInternalError, "Internal error"))
}

// logInternal logs an unexpected failure by its type and a short message:
// the type of the error an [InternalError] wraps, or the error's own.
func (s *Server) logInternal(msg string, err error) {
	typed := err
	var ie *internalError
	if errors.As(err, &ie) {
		typed = ie.err
	}
	s.log.Error(msg, "type", fmt.Sprintf("%T", typed), "error", shorten(err.Error(), 120))
}

func (ss *session) writeResult(out outbox, id json.RawMessage, res any) {
	ss.respond(out, response{JSONRPC: "2.0", ID: id, Result: res})
}

func (ss *session) writeError(out outbox, id json.RawMessage, e *Error) {
	ss.respond(out, response{JSONRPC: "2.0", ID: id, Error: e})
}

func (ss *session) respond(out outbox, r response) {
	data, err := json.Marshal(r)
	if err != nil {
		ss.srv.log.Error("encoding a message failed", "type", fmt.Sprintf("%T", err))
		// The request still gets an answer.
		data, _ = json.Marshal(response{JSONRPC: "2.0", ID: r.ID, Error: newError(CodeInternalError, "Internal error")})
	}
	if err := out.respond(data, r.ID != nil); err != nil {
		ss.srv.log.Debug("writing a message failed", "error", err)
	}
}

// encodeNotification encodes a notification, or returns nil (and logs)
// if it cannot be encoded.
func (ss *session) encodeNotification(method string, params any) []byte {
	data, err := json.Marshal(notification{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		ss.srv.log.Error("encoding a message failed", "type", fmt.Sprintf("%T", err))
		return nil
	}
	return data
}

// notify sends a notification of the session's own, tied to no request.
func (ss *session) notify(method string, params any) {
	if data := ss.encodeNotification(method, params); data != nil {
		if err := ss.events.notify(data); err != nil {
			ss.srv.log.Debug("writing a message failed", "error", err)
		}
	}
}

// negotiated returns the protocol version agreed at initialize.
func (ss *session) negotiated() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// atLeast reports whether the version the request of ctx is served under
// (see callInfo.version) is v or newer. Versions are dates, so they
// compare as strings.
func (ss *session) atLeast(ctx context.Context, v string) bool { return ss.versionFor(ctx) >= v }

// versionFor returns the version the request of ctx is served under.
func (ss *session) versionFor(ctx context.Context) string {
	if ci := callFrom(ctx); ci != nil {
		return ci.version
	}
	return ss.negotiated()
}

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

// initialized reports whether initialize has succeeded.
func (ss *session) initialized() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state != stateNew
}
