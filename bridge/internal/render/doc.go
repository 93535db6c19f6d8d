// Package render owns the lean text shapes the tools share: a place as
// line:character: source, the source lines places are shown with
// (Lines), places grouped by file with the ones past a limit counted
// (PlaceList, WritePlaces), a place with its file and source line (Loc),
// LSP symbol kinds in Go's words (SymbolKind), counts in words (Plural),
// the buffer line before an answer (WithBuffer), and client strings
// echoed in messages, clipped and with control characters replaced
// (Quote, Clip); the first sentence of a doc comment (FirstSentence), the
// text of an LSP markup value (MarkupText), a message on one line
// (OneLine), a diagnostic's severity in a word (Severity), and the order
// that lists unflagged entries first (FalseFirst). Lists also take their
// limit argument here (LimitOr), and their entries are asked of gopls a
// few at a time (ForEach).
//
// It imports the standard library, mcp (for the ordered maps that output
// types are made of), lspclient and go.lsp.dev/protocol (for the
// locations gopls answers with) and bridge/internal/memo; it never
// imports bridge.
package render
