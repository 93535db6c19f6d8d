// Package buffer owns the text a call works on as gopls holds it, and
// what goplsmcp keeps of the unsaved text it gives gopls.
//
// A Set opens sources (Source) for calls: the code a tool argument names
// (Doc: a file, unsaved text for a file, a snippet, or the buffer of an
// earlier call), the files a call reaches on its own, and snippets; each
// is held in gopls, with the text positions refer to, until the call
// releases it. A file as on disk that gopls knows from its first build
// (SetConfig.InBuild) is opened in gopls only when the call releases it,
// gopls reading it from disk meanwhile; OpenInGopls opens it at once for
// the calls that need gopls's analyzers. Bytes are read only through place's read gate, and paths
// resolved only through place.Resolver. The Set also keeps other
// sessions' snippets out of what a session sees (Foreign, DropForeign,
// ForeignPackage), shows the lines of files as gopls holds them
// (LineCache), and changes what gopls holds when the gate says so.
//
// It owns where snippets live (ScratchDir, below the root, never
// written), the snippets each session has open (Snippets), bounded by
// MaxSnippets, each session's overlays (Session), and the gate (Gate) that
// decides which calls run together so that gopls holds the overlays of
// one session at a time. The gate changes what gopls holds through a
// Switcher its caller gives it. Which session a call runs as is its
// caller's to say (Caller): bridge finds it from the MCP context.
//
// Imports: ask (gopls's failures as tool errors), memo, render, place
// and lspclient (the gopls that holds the buffers); besides, the
// standard library and go.lsp.dev/protocol.
package buffer
