// Package hierarchy owns gopls's call and type hierarchies: an item
// prepared at a target's position (Walker.Prepare), its neighbours asked
// for level by level (incoming and outgoing calls, supertypes and
// subtypes), walked to a depth with each item expanded once (Walker.Expand),
// and the tree rendered one line a node or a call site, indented by level
// (Lines). go_call_hierarchy and go_type_hierarchy are its users.
//
// What it needs of the bridge is given in a Walker: the gopls client, the
// buffers (the line cache, and the filter that hides other sessions'
// snippets), the read gate (how paths are shown) and the bound on
// requests in flight (Each).
//
// It imports the standard library, go.lsp.dev/protocol, lspclient (the
// gopls asked) and bridge/internal/render (lines, symbol kinds), place
// (display paths), buffer (the sources and sessions) and target (the
// position asked about, gopls's errors as tool errors); it never imports
// bridge or mcp.
package hierarchy
