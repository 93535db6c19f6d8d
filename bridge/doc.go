// Package bridge implements goplsmcp's tools: each turns one MCP tool call
// into LSP requests to gopls and shapes the answer into a lean text and a
// structured result.
//
// The machinery the tools share lives below, in its internal packages.
// Doc and At, which input types embed, keep their names here as aliases
// (inputs.go); a call's At becomes a place through internal/target. The
// sources calls work on, each session's overlays and the gate that
// switches them are internal/buffer's; sessions.go finds
// the session a call runs as and runs every call through the gate. Edit
// sets, and their proposal as a tool's answer and writing when allowed
// to and asked, are internal/edit's (Proposer); gopls's code actions and
// quick fixes are internal/action's; bridge aliases the types of theirs
// that its tools' schemas hold (edits.go). What the workspace's modules
// are, and the hints for missing ones, is internal/modules'; modules.go
// only registers the middleware that adds those hints to tool errors.
// It uses package mcp to register tools and package lspclient to reach
// gopls, and its internal packages for the machinery, each of which owns
// one vocabulary and says in its doc.go what it owns and, in a sentence
// starting "Imports:", which packages of this module it imports.
// TestLayering holds every doc.go to what go list reports, and the
// internal packages to this order: each imports only packages before it,
// never bridge.
//
//   - internal/memo: answers kept at a gopls generation, and the lines
//     and syntax trees of a text.
//   - internal/visible: every answer's text, structured strings, errors,
//     resources and prompts shown without a repository's control
//     characters, as they leave for mcp (the tool middleware Tools,
//     Resource, Prompt).
//   - internal/render: the lean text shapes tools share (places by
//     file and their source lines, symbol kinds, counts, clipped echoes
//     of client strings).
//   - internal/ask: how the tools ask gopls: a failed request as the tool
//     error the model reads (Error, ErrRestarted), and a list's entries
//     asked a few at a time (ForEach).
//   - internal/place: the root, the one read gate, the front of
//     addressing (a client's file or uri argument checked as text, then
//     resolved through links into a confined path: Resolver), how paths
//     are shown, and positions: written and read as go vet prints them
//     (Pos, Span, Loc), converted to and from gopls's 0-based UTF-16 ones.
//   - internal/buffer: the sources a call works on, opened and held
//     in gopls (Set, Source), where snippets live, each session's open
//     snippets and overlays, and the gate that keeps sessions apart on
//     the shared gopls.
//   - internal/gocmd: the go command, the installed Go's version and
//     directories, the build context, the modules on disk and the import
//     path of a directory, import path arguments checked.
//   - internal/symbol: symbol names (Name, pkg.Name, Type.Method,
//     pkg.Type.Method, (*Type).Method) split and read, and their
//     declarations found in parsed files, promoted members included.
//   - internal/decl: Go declarations read from parsed files, found by
//     the position of their name and rendered one line each with their
//     doc comment.
//   - internal/target: a call's target, the place in a held source that
//     an At names, found from a position, a name or a symbol (Resolver,
//     Target).
//   - internal/hierarchy: gopls's call and type hierarchies, prepared at
//     a target, walked to a depth and rendered as indented trees (Walker).
//   - internal/graph: the workspace's packages and their import graph as
//     gopls sees them (Graph: a package's directory, a file's package, its
//     imports, its importers level by level).
//   - internal/modules: the workspace's modules as on disk and as gopls
//     builds them, a build for each nested module the workspace's
//     diagnostics must cover, and the hints for a module the module
//     cache lacks or the go command loads nothing of.
//   - internal/edit: text edits made on a text, edit sets built from
//     gopls's workspace edits, unified diffs, the only write path and
//     the proposal of a set as a tool's answer (Proposer).
//   - internal/action: gopls's code actions on a range, their edits
//     (resolved when gopls sent them lazily) and the quick fixes of a
//     file's diagnostics.
//
// Imports: the internal packages above, mcp and lspclient; besides, the
// standard library and go.lsp.dev/protocol.
//
// One file holds one tool: its input and output types, its handler, its
// text rendering and its catalogue entry (a ToolSpec: everything else
// about the tool, from its description to its sample calls). The
// catalogue list in catalogue.go is the registry, and everything that
// lists tools (the instructions, the docs' tables, the skill, the tests'
// sample calls, .interop's calls) is derived from it.
//
// A tool whose answer spans the workspace (a search, the workspace's
// diagnostics, references, a rename, implementations, hierarchies, a
// package's API or graph) starts its handler with
// ctx = lspclient.WorkspaceWide(ctx): its requests then wait for gopls to
// load the packages of directories that just appeared, and only they do.
// A tool about a place in a file gopls knows leaves ctx alone, and is
// never delayed by those loads. Decisions about a call (does it give
// unsaved text?) are taken from its decoded arguments (mcp.ToolInput),
// never from the raw JSON. The only error a restart of gopls causes is
// ask.ErrRestarted; a failure that is the server's fault is wrapped in
// mcp.InternalError (-32603, logged), never a tool error.
//
// It also keeps MCP sessions apart on their shared gopls (sessions.go,
// over buffer.Set and buffer.Gate): each session's overlays and snippets
// are its own, gopls holds one session's overlays at a time, and answers
// drop other sessions' snippets. A 2026-07-28 request keeps its unsaved
// text under a handle (mcp.OfferHandles), which names such a session.
package bridge
