// Package mcp implements the server side of the Model Context Protocol:
// JSON-RPC 2.0 framing over stdio, the session lifecycle and version
// negotiation, the tool registry with JSON Schema generation and argument
// validation, resources, prompts with argument completion, pagination,
// progress, logging to clients, cancellation, bounded concurrency, and the
// protocol's error rules.
//
// It owns the protocol and nothing else: it knows nothing of Go, gopls or
// LSP, and it may not import any other package of this module. Tools,
// resources and prompts are plain functions registered with [AddTool],
// [AddResource] and [AddPrompt]; what they do is the caller's business.
// A handler learns about its request through its context: [SessionID],
// [ProgressRequested] and [ReportProgress].
package mcp
