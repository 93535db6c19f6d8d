// Package bridge implements goplsmcp's tools: each turns one MCP tool call
// into LSP requests to gopls and shapes the answer into a lean text and a
// structured result.
//
// It owns addressing (files confined to the root, positions, symbols),
// buffers (overlays and snippets), result shaping, and edits with their
// unified diffs, which it proposes, and writes only when allowed to and
// asked (see apply.go). It uses package mcp
// to register tools and package lspclient to reach gopls, and may import
// nothing else of this module. One file holds one tool: its input and
// output types, its handler and its text rendering.
package bridge
