// Package mcp implements the server side of the Model Context Protocol:
// JSON-RPC 2.0 framing over stdio, a local socket and the Streamable HTTP transport (with
// its bearer token, DNS-rebinding checks, session ids, event streams and
// idle expiry), the session lifecycle and version
// negotiation of the 2025 revisions beside the stateless 2026-07-28
// revision (server/discover, per-request _meta, cache hints,
// subscriptions/listen, its HTTP headers), the tool registry with JSON Schema generation and argument
// validation, resources, prompts with argument completion, pagination,
// progress, logging to clients, cancellation, bounded concurrency, and the
// protocol's error rules. It also chooses how a control character is shown
// ([StandIn], [Printable]): in what it echoes and logs to clients, and for
// its callers' answers.
//
// It owns the protocol and nothing else: it knows nothing of Go, gopls or
// LSP, and it may not import any other package of this module. Tools,
// resources and prompts are plain functions registered with [AddTool],
// [AddResource] and [AddPrompt]; what they do is the caller's business.
// A handler learns about its request through its context: [SessionID],
// [ToolInput], [ProgressRequested] and [ReportProgress].
//
// A session is the same whatever carries it: the transport only decides
// where each answer goes (the next stdout line, the next line on a local
// socket connection, or the HTTP response of the POST that asked), so
// every protocol rule holds on all of them. State kept per session is
// dropped in [Server.OnSessionEnd]. A request of the stateless revision is
// a session of its own: [SessionID] is fresh for it, and its session ends
// when it is answered, unless a handle keeps it ([Server.OfferHandles],
// [KeepState]): a later call that passes the handle runs under that id
// again, for the client the handle was given to.
//
// [Server.ServeLocal] serves stdio-like sessions on a unix socket, one per
// connection, to peers of the same user only: what a shared daemon serves;
// its clients check the same of it with [CheckLocalPeer].
// [Proxy] is the other end: it serves a session on stdin and stdout by
// relaying it to such a server, and when the connection is lost it dials
// again and gives the new session what the old one was given (initialize,
// the log level, and the calls a [ProxyOptions.Remember] names), and sends
// again the requests in flight, but for the calls a
// [ProxyOptions.Unrepeatable] names, which it answers itself.
package mcp
