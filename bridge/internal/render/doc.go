// Package render owns the lean text shapes the tools share: places
// grouped by file with the ones past a limit counted (PlaceList,
// WritePlaces; a place itself is written by place.Pos), LSP symbol kinds
// in Go's words (SymbolKind), counts in words (Plural), the buffer line
// before an answer (WithBuffer), and client strings echoed in messages,
// clipped and with control characters replaced (Quote, Clip); the first
// sentence of a doc comment (FirstSentence), the text of an LSP markup
// value (MarkupText), a message on one line (OneLine), a diagnostic's
// severity in a word (Severity), the order that lists unflagged entries
// first (FalseFirst), and the notes that say, in both channels, what an
// answer's counts and flags mean (Notes).
//
// Imports: mcp (the ordered maps output types are made of); besides, the
// standard library and go.lsp.dev/protocol.
package render
