// Package hierarchy owns gopls's call and type hierarchies: an item
// prepared at a target's position (Walker.Prepare), its neighbours asked
// for level by level (incoming and outgoing calls, supertypes and
// subtypes), walked to a depth with each item expanded once (Walker.Expand),
// and the tree rendered one line a node or a call site, indented by level
// (Lines). go_call_hierarchy and go_type_hierarchy are its users.
//
// What it needs of the bridge is given in a Walker: the gopls client, the
// buffers (the line cache, and the filter that hides other sessions'
// snippets) and the read gate (how paths are shown).
//
// Imports: ask (requests a few at a time, failures as tool errors),
// render (lines, symbol kinds), place (display paths), buffer (the
// sources and sessions), target (the position asked about) and lspclient
// (the gopls asked); besides, the standard library and
// go.lsp.dev/protocol.
package hierarchy
