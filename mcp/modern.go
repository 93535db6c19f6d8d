package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The modern revisions (2026-07-28 and later) have no handshake: every
// request names its protocol version, and the client's capabilities, in
// its _meta, and is served on its own. A session serves both eras at once:
// a request whose _meta names a version is modern; anything else follows
// the handshake of the 2025 revisions, exactly as before.

// Versions served statelessly, newest first.
var modernVersions = []string{"2026-07-28"}

// allVersions is every version this server speaks, newest first, as
// server/discover and an unsupported version's error list them.
var allVersions = append(slices.Clone(modernVersions), supportedVersions...)

// Error codes of the modern revisions, from the range the specification
// reserves for itself.
const (
	// CodeHeaderMismatch answers an HTTP request whose MCP headers are
	// missing or disagree with its body.
	CodeHeaderMismatch = -32020
	// CodeUnsupportedVersion answers a request whose _meta names a
	// version this server does not speak; its data lists those it does.
	CodeUnsupportedVersion = -32022
)

// Reserved _meta keys of the modern revisions.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// listTTL is the freshness of what changes only when the server restarts:
// its capabilities and its lists of tools, prompts and resources.
const listTTL = time.Hour

// listenKeepAlive is the interval of comment lines on an HTTP listen
// stream, so that proxies and clients do not take a quiet stream for a
// dead one.
const listenKeepAlive = 25 * time.Second

// A modernRequest is what a modern request's _meta says.
type modernRequest struct {
	version   string
	wantsLogs bool
	logLevel  LogLevel
}

// requestMeta returns params._meta, or nil.
func requestMeta(params json.RawMessage) map[string]json.RawMessage {
	if isNull(params) {
		return nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Meta
}

// metaVersion returns the protocol version a request's _meta names, and
// whether it names one at all.
func metaVersion(params json.RawMessage) (string, bool) {
	raw, ok := requestMeta(params)[metaProtocolVersion]
	if !ok {
		return "", false
	}
	v, _ := stringValue(raw)
	return v, true
}

// isModernVersion reports whether v is a modern version this server serves.
func isModernVersion(v string) bool { return slices.Contains(modernVersions, v) }

// unsupportedVersion is the error for a request naming version requested.
func unsupportedVersion(requested string) *Error {
	return &Error{
		Code:    CodeUnsupportedVersion,
		Message: "Unsupported protocol version: send one of " + strings.Join(allVersions, ", ") + " (the 2025 versions through initialize)",
		Data:    map[string]any{"supported": allVersions, "requested": requested},
	}
}

// parseModern reads and checks the protocol fields of a modern request's
// _meta. server/discover is lenient: it answers a probe that names no
// version, or no capabilities, as if it named the newest.
func parseModern(method string, params json.RawMessage) (*modernRequest, *Error) {
	meta := requestMeta(params)
	lenient := method == "server/discover"
	req := &modernRequest{}
	raw, ok := meta[metaProtocolVersion]
	switch {
	case !ok && lenient:
		req.version = modernVersions[0]
	case !ok:
		return nil, InvalidParams("_meta must name " + metaProtocolVersion)
	default:
		v, isStr := stringValue(raw)
		if !isStr {
			return nil, InvalidParams("_meta." + metaProtocolVersion + " must be a string")
		}
		if !isModernVersion(v) {
			return nil, unsupportedVersion(v)
		}
		req.version = v
	}
	if caps, ok := meta[metaClientCapabilities]; !ok || !isObject(caps) {
		if !lenient || ok {
			return nil, InvalidParams("_meta." + metaClientCapabilities + " must be an object (an empty one declares none)")
		}
	}
	if raw, ok := meta[metaLogLevel]; ok {
		name, _ := stringValue(raw)
		level, valid := ParseLogLevel(name)
		if !valid {
			return nil, InvalidParams("_meta." + metaLogLevel + " must be one of debug, info, notice, warning, error, critical, alert, emergency")
		}
		req.wantsLogs, req.logLevel = true, level
	}
	return req, nil
}

// modernHandlerFor returns the handler of a method of the modern
// revisions: no initialize, ping or logging/setLevel, and
// subscriptions/listen in place of the GET stream.
func modernHandlerFor(method string) methodHandler {
	switch method {
	case "server/discover":
		return discover
	case "subscriptions/listen":
		return listen
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return nil
	}
	return handlerFor(method)
}

// handleModern serves a modern request on out, or reports false when
// the request is not one: it names no version in _meta (nor is it
// server/discover), or it comes on a legacy session and names no modern
// version, which that session keeps serving as it always has.
func (ss *session) handleModern(ctx context.Context, id json.RawMessage, method string, params json.RawMessage, out outbox) (handled, started bool) {
	v, named := metaVersion(params)
	switch {
	case method == "server/discover":
	case !named:
		return false, false
	case ss.initialized() && !isModernVersion(v):
		return false, false
	}
	req, rpcErr := parseModern(method, params)
	if rpcErr != nil {
		ss.writeError(out, id, rpcErr)
		return true, false
	}
	if ss.draining.Load() {
		ss.writeError(out, id, newError(CodeInternalError, "Internal error: the server is shutting down and takes no new requests; retry"))
		return true, false
	}
	h := modernHandlerFor(method)
	if h == nil {
		ss.writeError(out, id, newError(CodeMethodNotFound, "Method not found"))
		return true, false
	}
	return true, ss.start(ctx, id, method, params, h, out, req)
}

// implementationInfo is the server's identity for a client of version.
func (s *Server) implementationInfo(version string) implementation {
	info := implementation{Name: s.name, Version: s.version}
	if version >= version20250618 {
		info.Title = s.opts.Title
	}
	if version >= version20251125 {
		info.Icons = s.opts.Icons
	}
	return info
}

// cacheHints returns the ttlMs and cacheScope of a modern result of
// method, or ok false for a result that has none.
func (s *Server) cacheHints(method string, params json.RawMessage) (ttl time.Duration, scope string, ok bool) {
	switch method {
	case "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		// Fixed from registration to exit; the same for every caller.
		return listTTL, "public", true
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(params, &p)
		s.mu.RLock()
		r := s.resIndex[p.URI]
		s.mu.RUnlock()
		if r != nil {
			ttl = r.def.TTL
		}
		// What a resource says is of the caller's workspace.
		return ttl, "private", true
	}
	return 0, "", false
}

// modernResult adds to a handler's result what every modern result
// carries: resultType, the server's identity in _meta and, for the
// results the specification names, cache hints.
func (ss *session) modernResult(ci *callInfo, method string, params json.RawMessage, res any) (any, error) {
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("a result is not an object: %T", res)
	}
	var meta map[string]any
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("decoding a result's _meta: %w", err)
		}
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[metaServerInfo] = ss.srv.implementationInfo(ci.version)
	set := func(k string, v any) {
		b, err := json.Marshal(v)
		if err == nil {
			obj[k] = b
		}
	}
	set("_meta", meta)
	set("resultType", "complete")
	if ttl, scope, ok := ss.srv.cacheHints(method, params); ok {
		set("ttlMs", ttl.Milliseconds())
		set("cacheScope", scope)
	}
	return obj, nil
}

// discover answers server/discover: the versions, capabilities and
// identity a client needs before anything else.
func discover(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	res := map[string]any{
		"supportedVersions": allVersions,
		"capabilities":      modernCapabilities(),
	}
	if in := ss.instructions(); in != "" {
		res["instructions"] = in
	}
	return res, nil
}

// modernCapabilities are the capabilities offered to modern clients.
// The lists never change while the server runs, so a listen stream can
// promise their change notifications (none will come); resources do
// change with the workspace, but the server cannot tell when, so there
// are no per-resource updates. Logging is deprecated but kept: a
// request that sets a level gets gopls's messages while it runs.
func modernCapabilities() map[string]any {
	return map[string]any{
		"tools":       map[string]any{"listChanged": true},
		"resources":   map[string]any{"listChanged": true, "subscribe": false},
		"prompts":     map[string]any{"listChanged": true},
		"completions": map[string]any{},
		"logging":     map[string]any{},
	}
}

// A keepAliver is an outbox that can carry comments which are no
// message: an HTTP event stream.
type keepAliver interface {
	keepAlive() error
}

// listen answers subscriptions/listen: it acknowledges the notification
// types it can honour, then holds the stream open until the client
// cancels it or the session ends, which it answers with the graceful
// closing result.
func listen(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	_ = json.Unmarshal(params, &p)
	if !isObject(p.Notifications) {
		return nil, InvalidParams("notifications must be an object naming the notification types to receive")
	}
	var f struct {
		ToolsListChanged     bool `json:"toolsListChanged"`
		PromptsListChanged   bool `json:"promptsListChanged"`
		ResourcesListChanged bool `json:"resourcesListChanged"`
	}
	if err := json.Unmarshal(p.Notifications, &f); err != nil {
		return nil, InvalidParams("notifications: toolsListChanged, promptsListChanged and resourcesListChanged must be booleans")
	}
	// The lists are fixed, so their change notifications are honoured by
	// never being due; resourceSubscriptions is not (see
	// modernCapabilities), and so left out of the acknowledgement.
	ack := map[string]any{}
	if f.ToolsListChanged {
		ack["toolsListChanged"] = true
	}
	if f.PromptsListChanged {
		ack["promptsListChanged"] = true
	}
	if f.ResourcesListChanged {
		ack["resourcesListChanged"] = true
	}
	ci := callFrom(ctx)
	ci.notify("notifications/subscriptions/acknowledged", map[string]any{
		"_meta":         map[string]any{metaSubscriptionID: ci.id},
		"notifications": ack,
	})
	var tick <-chan time.Time
	ka, canKeepAlive := ci.out.(keepAliver)
	if canKeepAlive {
		t := time.NewTicker(listenKeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ss.listenEnd():
			return map[string]any{"_meta": map[string]any{metaSubscriptionID: ci.id}}, nil
		case <-tick:
			if ka.keepAlive() != nil {
				return nil, context.Canceled
			}
		}
	}
}
