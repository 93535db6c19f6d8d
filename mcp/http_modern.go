package mcp

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The modern revisions over HTTP: no session, no GET stream. Each POST is
// served on its own, by a session that lives as long as the POST, so
// that nothing of one request (its id, its state) can meet another's;
// closing the response is cancelling the request.

// modernPost reports whether a POST is of the modern revisions: its
// version header names one, or its body's _meta names a version and it
// belongs to no legacy session (a legacy session's request whose _meta
// names a modern version is modern too), or it is a server/discover
// outside any session.
func modernPost(r *http.Request, body []byte) bool {
	if isModernVersion(r.Header.Get("MCP-Protocol-Version")) {
		return true
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	sid := r.Header.Get("Mcp-Session-Id")
	v, named := metaVersion(m.Params)
	switch {
	case named:
		return sid == "" || isModernVersion(v)
	case m.Method == "server/discover":
		return sid == ""
	}
	return false
}

// discardNotifier drops the session-level messages of a stateless
// session: the modern revisions have no stream to carry them.
type discardNotifier struct{}

func (discardNotifier) notify([]byte) error { return nil }

// stateless serves one modern POST. Its MCP headers must agree with its
// body (-32020 otherwise), and its _meta must be complete (-32602, or
// -32022 for a version this server does not speak), each answered 400
// before anything runs.
func (h *HTTPHandler) stateless(w http.ResponseWriter, r *http.Request, body []byte, jsonOK, sseOK bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &m) == nil && !isNull(m.ID) && validID(m.ID) {
		method, _ := stringValue(m.Method)
		if e := checkHeaders(r, method, m.Params); e != nil {
			h.srv.log.Debug("HTTP request refused: its headers disagree with its body", "error", e.Message)
			writeRPCError(w, http.StatusBadRequest, m.ID, e)
			return
		}
		if _, e := parseModern(method, m.Params); e != nil {
			writeRPCError(w, http.StatusBadRequest, m.ID, e)
			return
		}
	}
	ss := newSession(h.srv, discardNotifier{})
	// Whoever holds the token is the client: the token's hash names it.
	ss.client = "http:" + hex.EncodeToString(h.token[:])
	closeSession := ss.open()
	defer closeSession()
	// The request ends with its response stream, and with the handler.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopCancel := context.AfterFunc(h.ctx, cancel)
	defer stopCancel()
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case <-h.stopping:
			ss.endListens()
		case <-ended:
		}
	}()
	ex := newExchange(w, jsonOK, sseOK)
	ex.modern = true
	started := ss.handleLine(ctx, body, ex)
	ex.finish(r.Context(), started)
}

// checkHeaders checks a modern request's MCP headers against its body:
// MCP-Protocol-Version against the version its _meta names, Mcp-Method
// against its method and, for the methods that name something, Mcp-Name
// against the name or URI.
func checkHeaders(r *http.Request, method string, params json.RawMessage) *Error {
	mismatch := func(format string, a ...any) *Error {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + fmt.Sprintf(format, a...)}
	}
	hv := r.Header.Get("MCP-Protocol-Version")
	v, named := metaVersion(params)
	switch {
	case hv == "":
		return mismatch("the MCP-Protocol-Version header is missing")
	case named && hv != v:
		return mismatch("MCP-Protocol-Version header %s does not match _meta.%s %s", quoteHeader(hv), metaProtocolVersion, quoteHeader(v))
	}
	hm, ok := r.Header[http.CanonicalHeaderKey("Mcp-Method")]
	switch {
	case !ok:
		return mismatch("the Mcp-Method header is missing")
	case len(hm) != 1 || hm[0] != method:
		return mismatch("Mcp-Method header %s does not match the method %s", quoteHeader(strings.Join(hm, ",")), quoteHeader(method))
	}
	var field string
	switch method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return nil
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(params, &p)
	want, _ := stringValue(p[field])
	hn, ok := r.Header[http.CanonicalHeaderKey("Mcp-Name")]
	if !ok {
		return mismatch("the Mcp-Name header is missing; %s needs it", method)
	}
	got, err := headerValue(strings.Join(hn, ","))
	if err != nil || len(hn) != 1 {
		return mismatch("the Mcp-Name header is malformed")
	}
	if got != want {
		return mismatch("Mcp-Name header %s does not match params.%s %s", quoteHeader(got), field, quoteHeader(want))
	}
	return nil
}

// headerValue decodes a header value that may use the base64 sentinel
// form, =?base64?...?=, which carries what plain ASCII cannot.
func headerValue(v string) (string, error) {
	const pre, suf = "=?base64?", "?="
	if strings.HasPrefix(v, pre) && strings.HasSuffix(v, suf) && len(v) >= len(pre)+len(suf) {
		b, err := base64.StdEncoding.DecodeString(v[len(pre) : len(v)-len(suf)])
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return "", fmt.Errorf("invalid character")
		}
	}
	return v, nil
}

// writeRPCError answers with an HTTP status and a JSON-RPC error for id.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, e *Error) {
	body, _ := json.Marshal(response{JSONRPC: "2.0", ID: id, Error: e})
	writeJSON(w, status, body)
}

// status is the HTTP status of a JSON answer: 404 for a modern request's
// unknown method, as the modern revisions ask, so that a client tells it
// from a server that speaks none of them; 200 otherwise.
func (ex *httpExchange) status() int {
	if !ex.modern {
		return http.StatusOK
	}
	var m struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(ex.answer, &m) == nil && m.Error != nil {
		switch m.Error.Code {
		case CodeMethodNotFound:
			return http.StatusNotFound
		case CodeUnsupportedVersion, CodeHeaderMismatch:
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// keepAlive writes a comment on the event stream, beginning it if need
// be, so that a quiet listen stream is not taken for a dead one.
func (ex *httpExchange) keepAlive() error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.closed || ex.answered || !ex.sseOK {
		return nil
	}
	if !ex.streaming {
		ex.startStream()
	}
	if err := writeFlush(ex.w, ex.rc, []byte(": keep-alive\n\n")); err != nil {
		ex.closed = true
		return err
	}
	return nil
}
