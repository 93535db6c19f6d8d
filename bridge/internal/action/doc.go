// Package action owns gopls's code actions as goplsmcp uses them: asking
// gopls for the actions on a range of a source (Asker.List), the edits an
// action proposes, computed by gopls on request when it sent them lazily
// (Asker.Edits), and the quick fixes of a file's diagnostics, each with
// its edits (Asker.QuickFixes, Fix). Actions that only run a gopls command
// are never run.
//
// It imports the standard library, go.lsp.dev/protocol, lspclient (the
// gopls asked) and bridge/internal/render, buffer and edit; it never
// imports bridge or mcp. bridge passes in how a gopls failure becomes a
// tool error (Asker.GoplsError).
package action
