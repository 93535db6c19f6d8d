// Package mcp implements the server side of the Model Context Protocol:
// JSON-RPC 2.0 framing over stdio, the session lifecycle, the tool registry
// with JSON Schema generation and argument validation, and the protocol's
// error rules.
//
// It owns the protocol and nothing else: it knows nothing of Go, gopls or
// LSP, and it may not import any other package of this module. Tools are
// plain functions registered with [AddTool]; what they do is the caller's
// business.
package mcp
