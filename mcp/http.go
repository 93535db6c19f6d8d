package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// HTTPPath is the path of the MCP endpoint served over HTTP.
const HTTPPath = "/mcp"

// Probe paths, answered to a GET without a token and saying nothing but
// the status: HealthPath is 200 while the handler serves; ReadyPath is
// 200 while it takes new work and [HTTPOptions.Ready] says so, else 503.
const (
	HealthPath = "/healthz"
	ReadyPath  = "/readyz"
)

// retryAfter is the Retry-After, in seconds, of the 503 answered while
// draining: long enough for an orchestrator to have started a
// replacement and routed to it.
const retryAfter = "5"

// Defaults for [HTTPOptions] fields left zero.
const (
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultShutdownTimeout = time.Second
	DefaultKeepAlive       = 25 * time.Second
	DefaultMaxSessions     = 64
)

// HTTP connection timeouts. A request's headers must arrive within
// headerTimeout and its body within bodyTimeout of them; a kept-alive
// connection with no request is closed after connIdleTimeout. Together
// with the connection cap they shed clients that hold sockets.
const (
	headerTimeout   = 10 * time.Second
	bodyTimeout     = 30 * time.Second
	connIdleTimeout = 60 * time.Second
)

// writeTimeout bounds one write to an HTTP client, so that a client that
// stops reading cannot hold a call (or the session's log writer) forever.
const writeTimeout = 30 * time.Second

// backlogSize bounds the session messages kept while no event stream is
// open; the oldest are dropped first.
const backlogSize = 64

// HTTPOptions configure the Streamable HTTP transport.
type HTTPOptions struct {
	// Token is the bearer token every request must carry in its
	// Authorization header. It is required.
	Token string
	// Hosts are host names accepted in the Host header (and in Origin)
	// besides loopback names and IP literals: the names clients use to
	// reach the server, such as a container's service name. Anything else
	// is refused, which defeats DNS rebinding.
	Hosts []string
	// IdleTimeout ends a session that has had no request in flight and no
	// event stream open for this long (default 30 minutes).
	IdleTimeout time.Duration
	// ShutdownTimeout bounds how long ServeStreamableHTTP waits for
	// connections to finish once its context is done (default 1 s).
	ShutdownTimeout time.Duration
	// KeepAlive is the interval of comment lines on an idle event
	// stream, which lets a vanished client be noticed (default 25 s).
	KeepAlive time.Duration
	// MaxSessions bounds the sessions open at once (default 64).
	MaxSessions int
	// MaxConns bounds the connections open at once (default
	// [DefaultMaxConns]); at the cap the oldest connection that has not
	// carried the token is closed to make room.
	MaxConns int
	// Ready, if set, says whether the server can answer calls now; while
	// it says no, ReadyPath answers 503. It must be quick and safe for
	// concurrent use.
	Ready func() bool
}

// An HTTPHandler serves MCP's Streamable HTTP transport at [HTTPPath]: a
// POST carries one JSON-RPC message and gets its answer as JSON, or as an
// event stream when the call reports progress first; a GET opens the
// session's event stream for log messages; a DELETE ends the session.
// Every session is an ordinary session of the server: the protocol rules
// are the same as over stdio.
type HTTPHandler struct {
	srv   *Server
	opts  HTTPOptions
	token [32]byte // SHA-256 of the token: compared in constant time

	ctx    context.Context // parent of the sessions' contexts
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*httpSession
	closed   bool
	draining bool          // new work is refused (see Drain)
	posts    int           // POSTs being served
	idle     chan struct{} // closed when posts falls to zero while draining

	stopJanitor chan struct{}
	janitor     sync.WaitGroup

	// stopping is closed when the handler drains or closes, which ends
	// the listen streams of modern requests gracefully.
	stopping     chan struct{}
	stoppingOnce sync.Once
}

// stop closes h.stopping.
func (h *HTTPHandler) stop() { h.stoppingOnce.Do(func() { close(h.stopping) }) }

// NewHTTPHandler returns a handler for the server's sessions over HTTP.
// Close it to end them.
func (s *Server) NewHTTPHandler(opts *HTTPOptions) (*HTTPHandler, error) {
	if opts == nil || opts.Token == "" {
		return nil, errors.New("the HTTP transport needs a bearer token")
	}
	o := *opts
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &HTTPHandler{
		srv:         s,
		opts:        o,
		token:       sha256.Sum256([]byte(o.Token)),
		ctx:         ctx,
		cancel:      cancel,
		sessions:    make(map[string]*httpSession),
		stopJanitor: make(chan struct{}),
		stopping:    make(chan struct{}),
	}
	h.janitor.Go(h.expireIdle)
	return h, nil
}

// ServeStreamableHTTP serves MCP over HTTP on ln until ctx is done. Then
// it drains: new requests are answered 503, with Retry-After, while the
// calls in flight go on to their answers for at most
// [Options.DrainTimeout]. Then it ends every session (cancelling the calls
// still running), shuts the HTTP server down within the shutdown timeout
// and returns once every goroutine it started has ended.
func (s *Server) ServeStreamableHTTP(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	h, err := s.NewHTTPHandler(opts)
	if err != nil {
		ln.Close()
		return err
	}
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	ln = newConnLimiter(ln, maxConns)
	// No ReadTimeout: it would also end the event streams and long calls
	// of a client with the token; the body's deadline is set around its
	// read (see post).
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       connIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       withConn,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		h.Close()
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	dctx, stopDrain := context.WithTimeout(context.Background(), s.opts.DrainTimeout)
	if err := h.Drain(dctx); err != nil && s.opts.DrainTimeout > 0 {
		s.log.Warn("calls still in flight at the end of the drain; cancelling them", "drain", s.opts.DrainTimeout)
	}
	stopDrain()
	sctx, cancel := context.WithTimeout(context.Background(), h.opts.ShutdownTimeout)
	defer cancel()
	// The sessions end first: their calls are cancelled and answered and
	// their event streams close, so that Shutdown finds idle connections.
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	shutdown := hs.Shutdown(sctx)
	if shutdown != nil {
		s.log.Warn("HTTP connections still open at the shutdown deadline; closing them", "error", shutdown)
		hs.Close()
	}
	<-closed
	<-served
	return nil
}

// Close ends every session, cancelling its calls, and returns when their
// goroutines have ended. Requests after Close are refused.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.stop()
	sessions := make([]*httpSession, 0, len(h.sessions))
	for _, hs := range h.sessions {
		sessions = append(sessions, hs)
	}
	clear(h.sessions)
	h.mu.Unlock()
	close(h.stopJanitor)
	h.janitor.Wait()
	var wg sync.WaitGroup
	for _, hs := range sessions {
		wg.Go(hs.close)
	}
	wg.Wait()
	h.cancel()
}

// Drain stops the handler taking new work: from now on an initialize, a
// request or a new event stream is answered 503 with Retry-After, and
// ReadyPath answers 503, while notifications (cancellations among them),
// responses and DELETEs are still served. It returns nil once no POST is
// being served, which is when every call in flight has been answered (or
// its client has gone), or ctx's error if ctx ends first. Close ends the
// sessions afterwards.
func (h *HTTPHandler) Drain(ctx context.Context) error {
	h.stop()
	h.mu.Lock()
	if !h.draining {
		h.draining = true
		h.idle = make(chan struct{})
		if h.posts == 0 {
			close(h.idle)
		}
		h.srv.log.Info("draining: new requests are refused; waiting for the calls in flight", "posts", h.posts)
	}
	idle := h.idle
	h.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// admit counts a POST being served, or reports false when the handler is
// draining and body is a request, which would start new work.
func (h *HTTPHandler) admit(body []byte) bool {
	h.mu.Lock()
	draining := h.draining
	if !draining {
		h.posts++
	}
	h.mu.Unlock()
	if !draining {
		return true
	}
	if isRequest(body) {
		return false
	}
	h.mu.Lock()
	h.posts++
	h.mu.Unlock()
	return true
}

// done ends a POST that admit counted.
func (h *HTTPHandler) done() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.posts--
	if h.posts == 0 && h.draining {
		select {
		case <-h.idle:
		default:
			close(h.idle)
		}
	}
}

func (h *HTTPHandler) isDraining() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.draining || h.closed
}

// unavailable answers a request refused while draining.
func unavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", retryAfter)
	httpError(w, http.StatusServiceUnavailable, "Service Unavailable: the server is shutting down; retry in a few seconds")
}

// probe answers an orchestrator's health or readiness probe: the status
// and one word, nothing about the server.
func (h *HTTPHandler) probe(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ok := true
	if r.URL.Path == ReadyPath {
		ok = !h.isDraining() && (h.opts.Ready == nil || h.opts.Ready())
	}
	w.Header().Set("Cache-Control", "no-store")
	if ok {
		http.Error(w, "ok", http.StatusOK)
	} else {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
	}
}

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case HealthPath, ReadyPath:
		// Before the checks of Host, Origin and token: a probe carries
		// none, and its answer reveals nothing.
		h.probe(w, r)
		return
	}
	if r.URL.Path != HTTPPath {
		httpError(w, http.StatusNotFound, "Not Found: the MCP endpoint is "+HTTPPath)
		return
	}
	// DNS rebinding: a web page whose name was made to resolve to this
	// server would send its own name in Host and Origin.
	if !h.hostAllowed(hostName(r.Host)) {
		h.srv.log.Warn("HTTP request refused: Host not allowed", "host", shorten(r.Host, 80))
		httpError(w, http.StatusForbidden, "Forbidden: Host "+quoteHeader(r.Host)+" is not allowed; connect by IP address or localhost, or by a name given to --http")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin, r.Host) {
		h.srv.log.Warn("HTTP request refused: Origin not allowed", "origin", shorten(origin, 80))
		httpError(w, http.StatusForbidden, "Forbidden: Origin "+quoteHeader(origin)+" is not allowed")
		return
	}
	if !h.authorized(r) {
		// Refused before its body is read, and the connection closed
		// after the answer rather than kept for another try.
		w.Header().Set("Connection", "close")
		w.Header().Set("WWW-Authenticate", `Bearer realm="goplsmcp"`)
		httpError(w, http.StatusUnauthorized, "Unauthorized: send the token as Authorization: Bearer TOKEN")
		return
	}
	trust(r.Context())
	if r.Method != http.MethodPost && isModernVersion(r.Header.Get("MCP-Protocol-Version")) {
		// The modern revisions have no GET stream and no session to
		// delete: subscriptions/listen is a POST.
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "Method Not Allowed: "+r.Method+" is not part of MCP "+r.Header.Get("MCP-Protocol-Version")+"; POST every message, and subscriptions/listen for notifications")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "Method Not Allowed: use POST, GET or DELETE")
	}
}

func (h *HTTPHandler) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], h.token[:]) == 1
}

// hostAllowed reports whether a client may name the server host: a
// loopback name, an IP literal (which no DNS answer can rebind) or one of
// the configured names.
func (h *HTTPHandler) hostAllowed(host string) bool {
	if host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil {
		return true
	}
	return slices.ContainsFunc(h.opts.Hosts, func(n string) bool { return strings.EqualFold(n, host) })
}

// originAllowed reports whether a browser page at origin may call the
// server: a loopback page, a configured name, or the very host the
// request names (already checked by hostAllowed).
func (h *HTTPHandler) originAllowed(origin, requestHost string) bool {
	scheme, rest, ok := strings.Cut(origin, "://")
	if !ok || (scheme != "http" && scheme != "https") {
		return false
	}
	host := hostName(rest)
	if host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") || isLoopbackIP(host) || strings.EqualFold(host, hostName(requestHost)) {
		return true
	}
	return slices.ContainsFunc(h.opts.Hosts, func(n string) bool { return strings.EqualFold(n, host) })
}

// hostName returns the host of a host[:port] (brackets removed from an
// IPv6 literal), or "" if it is malformed.
func hostName(hostport string) string {
	if hostport == "" || strings.ContainsAny(hostport, "/?#@ ") {
		return ""
	}
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

func isLoopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopback reports whether the host of an address (host:port) is a
// loopback name or address, which only local clients can reach.
func IsLoopback(addr string) bool {
	host := hostName(addr)
	return strings.EqualFold(host, "localhost") || isLoopbackIP(host)
}

// accepts reads an Accept header: whether the client takes JSON and
// whether it takes an event stream. No header takes anything.
func accepts(header string) (jsonOK, sseOK bool) {
	if strings.TrimSpace(header) == "" {
		return true, true
	}
	for _, part := range strings.Split(header, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" || params["q"] == "0.0" {
			continue
		}
		switch mt {
		case "*/*":
			jsonOK, sseOK = true, true
		case "application/*", "application/json":
			jsonOK = true
		case "text/*", "text/event-stream":
			sseOK = true
		}
	}
	return jsonOK, sseOK
}

// checkVersion validates the MCP-Protocol-Version header: it must be a
// version this server speaks. Any of them is accepted on any session, not
// only the one it negotiated: clients (the conformance suite among them)
// head requests with a version of their own, and what a session sends
// still follows the version it negotiated. Without the header the
// session's version is assumed.
func checkVersion(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get("MCP-Protocol-Version")
	if v == "" || slices.Contains(supportedVersions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %s; this server speaks %s",
		quoteHeader(v), strings.Join(supportedVersions, ", ")))
	return false
}

// session finds the session a request names, or answers 400 (no session
// named) or 404 (no such session: it ended, or never existed).
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		httpError(w, http.StatusBadRequest, "Bad Request: the Mcp-Session-Id header is missing; a session begins with an initialize request")
		return nil
	}
	h.mu.Lock()
	hs := h.sessions[id]
	h.mu.Unlock()
	if hs == nil {
		httpError(w, http.StatusNotFound, "Not Found: no such session (it ended or never existed); initialize a new one")
		return nil
	}
	return hs
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: send one JSON-RPC message as application/json")
		return
	}
	jsonOK, sseOK := accepts(r.Header.Get("Accept"))
	if !jsonOK && !sseOK {
		httpError(w, http.StatusNotAcceptable, "Not Acceptable: accept application/json and text/event-stream")
		return
	}
	max := h.srv.opts.MaxMessageBytes
	// A body that never ends would hold the connection: it has its own
	// deadline, lifted once read so that the answer may take its time.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(max)+1))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		httpError(w, http.StatusBadRequest, "Bad Request: the body could not be read")
		return
	}
	if len(body) > max {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Invalid Request: message exceeds %d bytes", max))
		return
	}
	if !h.admit(body) {
		unavailable(w)
		return
	}
	defer h.done()
	if modernPost(r, body) {
		h.stateless(w, r, body, jsonOK, sseOK)
		return
	}
	if r.Header.Get("Mcp-Session-Id") == "" {
		if !checkVersion(w, r) {
			return
		}
		if !isInitialize(body) {
			httpError(w, http.StatusBadRequest, "Bad Request: the Mcp-Session-Id header is missing; a session begins with an initialize request")
			return
		}
		h.initialize(w, r, body, jsonOK, sseOK)
		return
	}
	hs := h.enter(w, r)
	if hs == nil {
		return
	}
	defer hs.release()
	w.Header().Set("Mcp-Session-Id", hs.ss.id)
	ex := newExchange(w, jsonOK, sseOK)
	started := hs.ss.handleLine(hs.ctx, body, ex)
	ex.finish(r.Context(), started)
}

// isRequest reports whether body is a request (a message with an id and a
// method), as opposed to a notification or a response.
func isRequest(body []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && len(m.ID) > 0 && string(m.ID) != "null" && len(m.Method) > 0 && string(m.Method) != "null"
}

// isInitialize reports whether body is an initialize request, the only
// message that may come without a session.
func isInitialize(body []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize" && len(m.ID) > 0
}

// initialize opens a session with the initialize request in body. The
// session is kept, and its id sent, only if initialize succeeds.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, body []byte, jsonOK, sseOK bool) {
	hs := h.newSession()
	ex := newExchange(w, jsonOK, sseOK)
	hs.ss.handleLine(hs.ctx, body, ex) // initialize is answered at once
	if !hs.ss.initialized() {
		hs.close()
		ex.finish(r.Context(), false)
		return
	}
	h.mu.Lock()
	full := len(h.sessions) >= h.opts.MaxSessions
	if !h.closed && !full {
		h.sessions[hs.ss.id] = hs
	}
	closed := h.closed
	h.mu.Unlock()
	switch {
	case closed:
		hs.close()
		unavailable(w)
		return
	case full:
		hs.close()
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: %d sessions are open, the most this server keeps; end one (DELETE) or wait for one to expire", h.opts.MaxSessions))
		return
	}
	h.srv.log.Info("HTTP session opened", "session", hs.ss.id[:8], "version", hs.ss.negotiated(), "remote", r.RemoteAddr)
	w.Header().Set("Mcp-Session-Id", hs.ss.id)
	ex.finish(r.Context(), false)
}

// enter finds the request's session, checks its protocol version header
// and holds the session for the request, or answers the request with the
// error and returns nil. The caller releases a session it gets.
func (h *HTTPHandler) enter(w http.ResponseWriter, r *http.Request) *httpSession {
	hs := h.session(w, r)
	if hs == nil || !checkVersion(w, r) {
		return nil
	}
	if !hs.acquire() {
		httpError(w, http.StatusNotFound, "Not Found: the session has ended; initialize a new one")
		return nil
	}
	return hs
}

// get opens the session's event stream, on which the session's own
// messages (log messages) arrive. Responses never do.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if _, sseOK := accepts(r.Header.Get("Accept")); !sseOK {
		httpError(w, http.StatusNotAcceptable, "Not Acceptable: the GET stream is text/event-stream")
		return
	}
	if h.isDraining() {
		unavailable(w)
		return
	}
	hs := h.enter(w, r)
	if hs == nil {
		return
	}
	defer hs.release()
	msgs, ok := hs.hub.attach()
	if !ok {
		httpError(w, http.StatusConflict, "Conflict: this session already has an event stream open")
		return
	}
	defer hs.hub.detach(msgs)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Mcp-Session-Id", hs.ss.id)
	w.WriteHeader(http.StatusOK)
	if writeFlush(w, rc, nil) != nil {
		return
	}
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	for {
		var err error
		select {
		case msg := <-msgs:
			err = writeFlush(w, rc, msg)
		case <-keepAlive.C:
			err = writeFlush(w, rc, []byte(": keep-alive\n\n"))
		case <-r.Context().Done():
			return
		case <-hs.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	hs := h.session(w, r)
	if hs == nil || !checkVersion(w, r) {
		return
	}
	h.end(hs, "deleted by the client")
	w.WriteHeader(http.StatusOK)
}

// end forgets a session and closes it.
func (h *HTTPHandler) end(hs *httpSession, why string) {
	h.mu.Lock()
	if h.sessions[hs.ss.id] == hs {
		delete(h.sessions, hs.ss.id)
	}
	h.mu.Unlock()
	hs.close()
	h.srv.log.Info("HTTP session ended", "session", hs.ss.id[:8], "why", why)
}

// expireIdle ends sessions idle for longer than the idle timeout, until
// Close.
func (h *HTTPHandler) expireIdle() {
	every := min(max(h.opts.IdleTimeout/4, 10*time.Millisecond), time.Minute)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-h.stopJanitor:
			return
		case now := <-tick.C:
			h.mu.Lock()
			var idle []*httpSession
			for _, hs := range h.sessions {
				if hs.expire(now, h.opts.IdleTimeout) {
					idle = append(idle, hs)
				}
			}
			h.mu.Unlock()
			for _, hs := range idle {
				h.end(hs, "idle")
			}
		}
	}
}

// An httpSession is a session served over HTTP: its context, which ends
// its calls when the session ends, its event stream and its activity.
type httpSession struct {
	ss     *session
	hub    *eventHub
	ctx    context.Context
	cancel context.CancelFunc
	stop   func() // from session.open

	mu        sync.Mutex
	active    int       // requests being served
	lastSeen  time.Time // when active last fell to zero
	closing   bool
	drained   chan struct{} // closed when closing and active is zero
	closeOnce sync.Once
	closed    chan struct{}
}

func (h *HTTPHandler) newSession() *httpSession {
	hub := &eventHub{log: h.srv.log}
	ctx, cancel := context.WithCancel(h.ctx)
	hs := &httpSession{
		ss:       newSession(h.srv, hub),
		hub:      hub,
		ctx:      ctx,
		cancel:   cancel,
		lastSeen: time.Now(),
		drained:  make(chan struct{}),
		closed:   make(chan struct{}),
	}
	hs.stop = hs.ss.open()
	return hs
}

// acquire counts a request being served; it fails once the session is
// closing.
func (hs *httpSession) acquire() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.closing {
		return false
	}
	hs.active++
	return true
}

func (hs *httpSession) release() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.active--
	if hs.active == 0 {
		hs.lastSeen = time.Now()
		if hs.closing {
			close(hs.drained)
		}
	}
}

// expire starts closing the session if, at now, it has been idle (no
// request served, no event stream open) for longer than limit. Deciding
// and refusing new requests at once means no request can slip in between
// and be cancelled by the close.
func (hs *httpSession) expire(now time.Time, limit time.Duration) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.closing || hs.active > 0 || now.Sub(hs.lastSeen) <= limit {
		return false
	}
	hs.closing = true
	return true
}

// close ends the session: its calls are cancelled (and answered, to
// clients still waiting), its event stream closes, and it returns once
// every request and call of the session has ended. It may be called more
// than once, from any goroutine.
func (hs *httpSession) close() {
	hs.closeOnce.Do(func() {
		hs.mu.Lock()
		hs.closing = true
		if hs.active == 0 {
			// release closes drained only for requests that end
			// once closing is set; none is left to.
			close(hs.drained)
		}
		hs.mu.Unlock()
		hs.cancel()
		<-hs.drained
		hs.stop()
		close(hs.closed)
	})
	<-hs.closed
}

// An httpExchange is the outbox of one POST: notifications about the
// request go out as events (turning the response into an event stream, if
// the client accepts one), and the response ends it.
type httpExchange struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	jsonOK bool
	sseOK  bool
	modern bool          // a stateless request (see HTTPHandler.stateless)
	done   chan struct{} // closed by respond

	mu         sync.Mutex
	streaming  bool // the event stream has begun
	closed     bool // the handler is done with w, or writing failed
	answered   bool
	answer     []byte
	identified bool
}

func newExchange(w http.ResponseWriter, jsonOK, sseOK bool) *httpExchange {
	return &httpExchange{w: w, rc: http.NewResponseController(w), jsonOK: jsonOK, sseOK: sseOK, done: make(chan struct{})}
}

// startStream begins the event stream. ex.mu is held.
func (ex *httpExchange) startStream() {
	ex.w.Header().Set("Content-Type", "text/event-stream")
	ex.w.Header().Set("Cache-Control", "no-cache")
	if ex.modern {
		ex.w.Header().Set("X-Accel-Buffering", "no")
	}
	ex.w.WriteHeader(http.StatusOK)
	ex.streaming = true
}

func (ex *httpExchange) notify(msg []byte) error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.closed || ex.answered || !ex.sseOK {
		// A client that takes only JSON gets the response alone.
		return nil
	}
	if !ex.streaming {
		ex.startStream()
	}
	if err := writeFlush(ex.w, ex.rc, msg); err != nil {
		ex.closed = true
		return err
	}
	return nil
}

func (ex *httpExchange) respond(msg []byte, identified bool) error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.answered {
		return nil
	}
	ex.answered = true
	defer close(ex.done)
	if ex.closed {
		return nil
	}
	if ex.streaming {
		if msg == nil {
			return nil
		}
		if err := writeFlush(ex.w, ex.rc, msg); err != nil {
			ex.closed = true
			return err
		}
		return nil
	}
	// Written by the handler, which sets the status.
	ex.answer, ex.identified = msg, identified
	return nil
}

// finish waits for the answer of a started request, then completes the
// HTTP response: 202 when there is nothing to answer, 400 for an error
// about a message whose id could not be read, otherwise the response as
// JSON (or as a one-event stream for a client that takes only streams).
// If the client goes away first, the call goes on (a disconnection is not
// a cancellation) and its answer is dropped.
func (ex *httpExchange) finish(ctx context.Context, started bool) {
	if started {
		select {
		case <-ex.done:
		case <-ctx.Done():
		}
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.closed {
		return
	}
	ex.closed = true
	switch {
	case ex.streaming:
	case !ex.answered:
		ex.w.WriteHeader(http.StatusAccepted)
	case ex.answer == nil:
		// A request the client cancelled: no response will come.
		if ex.sseOK {
			ex.startStream()
		} else {
			ex.w.WriteHeader(http.StatusAccepted)
		}
	case !ex.identified:
		writeJSON(ex.w, http.StatusBadRequest, ex.answer)
	case ex.jsonOK:
		writeJSON(ex.w, ex.status(), ex.answer)
	default:
		ex.startStream()
		_ = writeFlush(ex.w, ex.rc, ex.answer)
	}
}

// eventHub holds a session's own messages for its event stream (the GET
// stream): they go to the stream when one is open, else wait in a small
// backlog for the next one. It never blocks.
type eventHub struct {
	log     *slog.Logger
	mu      sync.Mutex
	stream  chan []byte // nil while no stream is open
	backlog [][]byte
}

func (hb *eventHub) notify(msg []byte) error {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.stream != nil {
		select {
		case hb.stream <- msg:
		default:
			hb.log.Debug("event stream full; message dropped")
		}
		return nil
	}
	if len(hb.backlog) == backlogSize {
		hb.backlog = hb.backlog[1:]
	}
	hb.backlog = append(hb.backlog, msg)
	return nil
}

// attach opens the stream, with the backlog first; there is one at most.
func (hb *eventHub) attach() (chan []byte, bool) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.stream != nil {
		return nil, false
	}
	ch := make(chan []byte, 4*backlogSize)
	for _, m := range hb.backlog {
		ch <- m
	}
	hb.backlog = nil
	hb.stream = ch
	return ch, true
}

// detach closes the stream; messages it had not written wait for the next.
func (hb *eventHub) detach(ch chan []byte) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.stream != ch {
		return
	}
	hb.stream = nil
	for {
		select {
		case m := <-ch:
			if len(hb.backlog) < backlogSize {
				hb.backlog = append(hb.backlog, m)
			}
		default:
			return
		}
	}
}

// writeFlush writes one server-sent event carrying msg (or, for a msg
// starting with ':', the comment as it is; nil writes nothing) and
// flushes it, within the write timeout.
func writeFlush(w http.ResponseWriter, rc *http.ResponseController, msg []byte) error {
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if msg != nil {
		var err error
		if msg[0] == ':' {
			_, err = w.Write(msg)
		} else {
			buf := make([]byte, 0, len(msg)+24)
			buf = append(buf, "event: message\ndata: "...)
			buf = append(buf, msg...)
			buf = append(buf, "\n\n"...)
			_, err = w.Write(buf)
		}
		if err != nil {
			return err
		}
	}
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// httpError answers with an HTTP error status and, as its body, a
// JSON-RPC error without an id that says what to do.
func httpError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(response{JSONRPC: "2.0", Error: newError(CodeInvalidRequest, msg)})
	writeJSON(w, status, body)
}

// quoteHeader quotes a client's header value for a message: shortened,
// with control characters replaced.
func quoteHeader(v string) string {
	return fmt.Sprintf("%q", shorten(v, 80))
}
