package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
)

// ProxyOptions configure [Proxy].
type ProxyOptions struct {
	// Dial connects to the server that serves the session (over
	// [Server.ServeLocal]), starting it if need be. It is called again
	// when the connection is lost.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)
	// Remember, if set, is asked about every tools/call the client makes:
	// whether it gives the server state it keeps for the session (such
	// as unsaved text), which a new server must be given again. key names
	// that state: a later call with the same key replaces it, and forget
	// drops it. replay is the arguments to send the tool then (nil: the
	// call's own). An empty key is nothing to remember.
	Remember func(tool string, args json.RawMessage) (key string, replay json.RawMessage, forget bool)
	// Unrepeatable, if set, is asked about every tools/call the client
	// makes: whether the call must never run twice (it changes something
	// a second run would find changed). Such a call in flight when the
	// connection is lost is not sent again: the proxy answers it itself
	// with a tool error whose text is the answer returned, which should
	// say what the client can rely on and what to check. "" means the
	// call may be sent again.
	Unrepeatable func(tool string, args json.RawMessage) (answer string)
	// Logger receives the proxy's log; nil discards it.
	Logger *slog.Logger
	// MaxMessageBytes caps one message from the client (default 2 MiB),
	// as the server's own option does.
	MaxMessageBytes int
}

// Proxy serves one MCP session on a pair of streams (stdin and stdout, as
// [Server.ServeStdio] does) by relaying its messages, unchanged, to a
// session of a server reached through opts.Dial.
//
// When that connection is lost, the proxy dials again and gives the new
// session what the client gave the old one: initialize, the log level, and
// the state opts.Remember names; then it sends again the requests that
// were unanswered, each at most once more. So a client sees a lost server
// as, at worst, one call that took longer; a call lost twice, or a server
// that cannot be reached, is answered with an error. The proxy returns at
// the end of in (once the server has answered what it was sent), when ctx
// is done, or when writing to out fails.
func Proxy(ctx context.Context, in io.Reader, out io.Writer, opts *ProxyOptions) error {
	p := &proxy{
		opts:     *opts,
		out:      &lineWriter{w: out},
		fromConn: make(chan connLine),
		inflight: map[string]*proxiedCall{},
	}
	if p.opts.MaxMessageBytes <= 0 {
		p.opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	p.log = p.opts.Logger
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	defer p.disconnect()
	return p.run(ctx, in)
}

type proxy struct {
	opts ProxyOptions
	log  *slog.Logger
	out  *lineWriter

	conn     io.ReadWriteCloser
	connOut  *lineWriter
	gen      int
	fromConn chan connLine

	// inflight are the client's requests not answered yet, in the order
	// they came; order keeps it.
	inflight map[string]*proxiedCall
	order    []string

	// What a new server session must be given again.
	initParams  json.RawMessage // of an initialize that succeeded
	initID      string          // idKey of the initialize in flight
	initPending json.RawMessage // its params
	initialized bool            // notifications/initialized was sent
	levelParams json.RawMessage // of the last logging/setLevel
	remembered  []rememberedCall
	internalSeq int
}

// A proxiedCall is a client request on its way to an answer.
type proxiedCall struct {
	line []byte
	// lost counts the connections that ended before answering it.
	lost int
	// unrepeatable is the answer to give the call if the connection is
	// lost while it runs (see ProxyOptions.Unrepeatable); "" if it may
	// be sent again.
	unrepeatable string
	// refused says a draining server answered that it did not take the
	// call, which may then be sent again whatever it is.
	refused bool
}

type rememberedCall struct {
	key  string
	tool string
	args json.RawMessage
}

// A connLine is one line from the server's connection gen, or its end.
type connLine struct {
	gen  int
	line []byte
	err  error
}

// internalPrefix starts the ids of the proxy's own requests, which no
// client is expected to use; their answers are not relayed.
const internalPrefix = "mcp-proxy-replay-"

func (p *proxy) run(ctx context.Context, in io.Reader) error {
	lines := make(chan readResult)
	go func() {
		lr := newLineReader(in, p.opts.MaxMessageBytes)
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
	// The server is dialled at once, so that starting it overlaps the
	// client's own start.
	if err := p.connect(ctx); err != nil {
		p.log.Info("cannot reach the server yet", "error", err)
	}
	inputDone := false
	for {
		if inputDone && (p.conn == nil || len(p.inflight) == 0) {
			return nil
		}
		var clientLines chan readResult
		if !inputDone {
			clientLines = lines
		}
		select {
		case <-ctx.Done():
			return nil
		case r := <-clientLines:
			switch {
			case r.err == errLineTooLong:
				if err := p.writeError(nil, CodeInvalidRequest, fmt.Sprintf("Invalid Request: message exceeds %d bytes", p.opts.MaxMessageBytes)); err != nil {
					return err
				}
			case r.err != nil:
				// The end of the input, or a failed read: the server answers
				// what it was sent, then ends the session.
				inputDone = true
				if r.err != io.EOF {
					p.log.Debug("reading the client", "error", r.err)
				}
				if cw, ok := p.conn.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite()
				} else {
					p.disconnect()
				}
			default:
				if err := p.fromClient(ctx, r.line); err != nil {
					return err
				}
			}
		case m := <-p.fromConn:
			if m.gen != p.gen {
				continue // a connection given up already
			}
			if m.err != nil {
				if err := p.lost(ctx, m.err, !inputDone); err != nil {
					return err
				}
				continue
			}
			if err := p.fromServer(m.line); err != nil {
				return err
			}
		}
	}
}

// fromClient notes what a client message changes, then relays it.
func (p *proxy) fromClient(ctx context.Context, line []byte) error {
	var msg wireMessage
	if json.Unmarshal(line, &msg) != nil || !isObject(line) {
		// The server answers what is wrong with it.
		return p.send(ctx, line)
	}
	method, _ := stringValue(msg.Method)
	hasID := validID(msg.ID)
	switch {
	case hasID && method != "":
		key := idKey(msg.ID)
		if _, dup := p.inflight[key]; !dup {
			p.order = append(p.order, key)
		}
		c := &proxiedCall{line: line}
		p.inflight[key] = c
		switch method {
		case "initialize":
			p.initID = key
			p.initPending = msg.Params
		case "logging/setLevel":
			p.levelParams = msg.Params
		case "tools/call":
			// A modern call keeps nothing in the session: what it
			// keeps is named by a handle, which a new server refuses
			// in a sentence saying so. A call that names a 2025
			// version in _meta on an initialized session is the
			// session's, as the server serves it (handleModern).
			if v, named := metaVersion(msg.Params); !named || (p.initParams != nil && !isModernVersion(v)) {
				p.remember(msg.Params)
			}
			c.unrepeatable = p.unrepeatable(msg.Params)
		}
	case len(msg.ID) == 0 && method == "notifications/initialized":
		p.initialized = true
	case len(msg.ID) == 0 && method == "notifications/cancelled":
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(msg.Params, &params) == nil && validID(params.RequestID) {
			// A cancelled request gets no answer, and is not sent again.
			p.forget(idKey(params.RequestID))
		}
	}
	return p.send(ctx, line)
}

// remember notes the session state a tools/call gives the server.
func (p *proxy) remember(params json.RawMessage) {
	if p.opts.Remember == nil {
		return
	}
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &call) != nil || call.Name == "" {
		return
	}
	key, replay, forget := p.opts.Remember(call.Name, call.Arguments)
	if key == "" {
		return
	}
	i := slices.IndexFunc(p.remembered, func(r rememberedCall) bool { return r.key == key })
	if forget {
		if i >= 0 {
			p.remembered = slices.Delete(p.remembered, i, i+1)
		}
		return
	}
	if replay == nil {
		replay = call.Arguments
	}
	r := rememberedCall{key: key, tool: call.Name, args: replay}
	if i >= 0 {
		// The latest state, in its first place: later calls may rely on
		// earlier keys, never on later ones.
		p.remembered[i] = r
		return
	}
	p.remembered = append(p.remembered, r)
}

// unrepeatable asks ProxyOptions.Unrepeatable about a tools/call.
func (p *proxy) unrepeatable(params json.RawMessage) string {
	if p.opts.Unrepeatable == nil {
		return ""
	}
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &call) != nil || call.Name == "" {
		return ""
	}
	return p.opts.Unrepeatable(call.Name, call.Arguments)
}

// fromServer relays a server message, noting the answers.
func (p *proxy) fromServer(line []byte) error {
	if id, ok := responseID(line); ok {
		key := idKey(id)
		if c, waiting := p.inflight[key]; waiting && shuttingDown(line) {
			// The server is draining before it stops: the request goes
			// to the next one, once this connection has ended.
			c.refused = true
			return nil
		}
		if key == p.initID {
			// Rare: the whole answer is read.
			var msg wireMessage
			if json.Unmarshal(line, &msg) == nil && isNull(msg.Error) {
				p.initParams = p.initPending
			}
			p.initID = ""
		}
		p.forget(key)
	}
	return p.out.write(line)
}

// forget drops an in-flight request.
func (p *proxy) forget(key string) {
	if _, ok := p.inflight[key]; !ok {
		return
	}
	delete(p.inflight, key)
	p.order = slices.DeleteFunc(p.order, func(k string) bool { return k == key })
}

// send relays a client line, connecting first if need be.
func (p *proxy) send(ctx context.Context, line []byte) error {
	if p.conn == nil {
		if err := p.reconnect(ctx); err != nil {
			// reconnect answered what was in flight, this line included.
			return p.answerFailed(err)
		}
		// reconnect sent again everything in flight, this line included
		// when it is a request; a notification or a response remains.
		var msg wireMessage
		if json.Unmarshal(line, &msg) == nil && validID(msg.ID) {
			if _, ok := p.inflight[idKey(msg.ID)]; ok && !isNull(msg.Method) {
				return nil
			}
		}
	}
	if err := p.connOut.write(line); err != nil {
		// The reader of the connection reports its end; the line is
		// sent again then if it is a request.
		p.log.Debug("writing to the server", "error", err)
	}
	return nil
}

// lost handles the end of the connection to the server. The requests in
// flight are sent again on a new connection, once each, but for the
// unrepeatable calls the server may have started, which are answered
// here; with none in flight, the next message from the client connects
// again.
func (p *proxy) lost(ctx context.Context, cause error, reconnect bool) error {
	p.log.Info("lost the connection to the server", "error", cause, "in_flight", len(p.inflight))
	p.disconnect()
	for _, key := range slices.Clone(p.order) {
		c := p.inflight[key]
		if c.unrepeatable != "" && !c.refused {
			p.log.Warn("not sending again a call that must not run twice", "id", key)
			if err := p.writeToolErrorFor(key, c, c.unrepeatable); err != nil {
				return err
			}
			continue
		}
		c.refused = false
		c.lost++
		if c.lost > 1 || !reconnect {
			if err := p.writeErrorFor(key, c, "the shared server stopped twice during this call; call again"); err != nil {
				return err
			}
		}
	}
	if len(p.inflight) == 0 || !reconnect {
		return nil
	}
	if err := p.reconnect(ctx); err != nil {
		return p.answerFailed(err)
	}
	return nil
}

// answerFailed answers every request in flight with the error of a
// failed reconnection.
func (p *proxy) answerFailed(cause error) error {
	p.log.Warn("cannot reach the server", "error", cause)
	for _, key := range slices.Clone(p.order) {
		if err := p.writeErrorFor(key, p.inflight[key], fmt.Sprintf("the shared server cannot be reached (%v); call again", cause)); err != nil {
			return err
		}
	}
	return nil
}

// writeErrorFor answers a request in flight with an error, and forgets it.
func (p *proxy) writeErrorFor(key string, c *proxiedCall, msg string) error {
	var m wireMessage
	_ = json.Unmarshal(c.line, &m)
	p.forget(key)
	return p.writeError(m.ID, CodeInternalError, msg)
}

// writeToolErrorFor answers a tools/call in flight with a tool error
// result, as a server answers a tool that failed (see errorResult), and
// forgets it.
func (p *proxy) writeToolErrorFor(key string, c *proxiedCall, msg string) error {
	var m wireMessage
	_ = json.Unmarshal(c.line, &m)
	p.forget(key)
	data, err := json.Marshal(response{JSONRPC: "2.0", ID: m.ID, Result: errorResult(msg, nil)})
	if err != nil {
		return err
	}
	return p.out.write(data)
}

func (p *proxy) writeError(id json.RawMessage, code int, msg string) error {
	data, err := json.Marshal(response{JSONRPC: "2.0", ID: id, Error: newError(code, msg)})
	if err != nil {
		return err
	}
	return p.out.write(data)
}

// disconnect closes the connection, if any; the lines still coming from
// it are ignored.
func (p *proxy) disconnect() {
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
		p.connOut = nil
	}
	p.gen++
}

// reconnect dials the server, gives its new session what the client gave
// the last one, and sends again the requests in flight. One failed replay
// is tried again on a fresh connection: the server may have been stopping.
func (p *proxy) reconnect(ctx context.Context) error {
	var err error
	for range 2 {
		if err = p.connect(ctx); err != nil {
			return err
		}
		if err = p.replay(ctx); err == nil {
			break
		}
		p.log.Info("giving a new server session the old one's state failed", "error", err)
		p.disconnect()
	}
	if err != nil {
		return err
	}
	for _, key := range p.order {
		if err := p.connOut.write(p.inflight[key].line); err != nil {
			p.log.Debug("writing to the server", "error", err)
			break // the reader reports the end
		}
	}
	return nil
}

// connect dials and starts reading the new connection.
func (p *proxy) connect(ctx context.Context) error {
	conn, err := p.opts.Dial(ctx)
	if err != nil {
		return err
	}
	p.gen++
	p.conn = conn
	p.connOut = &lineWriter{w: conn}
	gen := p.gen
	go func() {
		lr := newLineReader(conn, 64<<20)
		for {
			line, err := lr.next()
			if err == errLineTooLong {
				continue
			}
			select {
			case p.fromConn <- connLine{gen: gen, line: slices.Clone(line), err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return nil
}

// replay gives the new session what the client gave the old one, waiting
// for each answer so that the requests sent after see it all.
func (p *proxy) replay(ctx context.Context) error {
	if p.initParams == nil {
		return nil
	}
	if _, err := p.internalCall(ctx, "initialize", p.initParams); err != nil {
		return err
	}
	if p.initialized {
		if err := p.connOut.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
			return err
		}
	}
	if p.levelParams != nil {
		if _, err := p.internalCall(ctx, "logging/setLevel", p.levelParams); err != nil {
			return err
		}
	}
	for _, r := range p.remembered {
		params, err := json.Marshal(map[string]any{"name": r.tool, "arguments": r.args})
		if err != nil {
			return err
		}
		if _, err := p.internalCall(ctx, "tools/call", params); err != nil {
			// The state may no longer be valid (a file deleted meanwhile);
			// the calls that rely on it say so themselves.
			var rpcErr *Error
			if !errors.As(err, &rpcErr) {
				return err
			}
			p.log.Debug("replaying a call failed", "tool", r.tool, "error", err)
		}
	}
	p.log.Info("gave a new server session the old one's state", "calls", len(p.remembered))
	return nil
}

// internalCall sends a request of the proxy's own on the current
// connection and waits for its answer, relaying the server's
// notifications meanwhile.
func (p *proxy) internalCall(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.internalSeq++
	id, _ := json.Marshal(internalPrefix + strconv.Itoa(p.internalSeq))
	msg, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", id, method, params})
	if err != nil {
		return nil, err
	}
	if err := p.connOut.write(msg); err != nil {
		return nil, err
	}
	want := idKey(id)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case m := <-p.fromConn:
			if m.gen != p.gen {
				continue
			}
			if m.err != nil {
				return nil, fmt.Errorf("the server's connection ended: %w", m.err)
			}
			var resp wireMessage
			if json.Unmarshal(m.line, &resp) != nil {
				continue
			}
			if !isNull(resp.Method) {
				if len(resp.ID) == 0 {
					// A log message: the client may want it.
					if err := p.out.write(m.line); err != nil {
						return nil, err
					}
				}
				continue
			}
			if !validID(resp.ID) || idKey(resp.ID) != want {
				continue
			}
			if !isNull(resp.Error) {
				var e Error
				_ = json.Unmarshal(resp.Error, &e)
				return nil, &e
			}
			return resp.Result, nil
		}
	}
}

// responsePrefix starts every response the server writes (see response):
// the members in the order of its fields.
var responsePrefix = []byte(`{"jsonrpc":"2.0","id":`)

// responseID returns the id of a response, reading no more of the line
// than its start when the server wrote it, so that relaying a large answer
// costs no parse of it; any other spelling is parsed whole.
func responseID(line []byte) (json.RawMessage, bool) {
	if rest, ok := bytes.CutPrefix(line, responsePrefix); ok {
		if end := bytes.IndexByte(rest, ','); end > 0 {
			id := json.RawMessage(rest[:end])
			if validID(id) && (bytes.HasPrefix(rest[end:], []byte(`,"result":`)) || bytes.HasPrefix(rest[end:], []byte(`,"error":`))) {
				return id, true
			}
		}
	}
	var msg wireMessage
	if json.Unmarshal(line, &msg) == nil && isNull(msg.Method) && validID(msg.ID) {
		return msg.ID, true
	}
	return nil, false
}

// shuttingDown reports whether a response is the refusal of a server that
// is draining ([CodeShuttingDown]).
func shuttingDown(line []byte) bool {
	if !bytes.Contains(line, []byte(`"error":`)) {
		return false
	}
	var msg struct {
		Error *Error `json:"error"`
	}
	return json.Unmarshal(line, &msg) == nil && msg.Error != nil && msg.Error.Code == CodeShuttingDown
}
