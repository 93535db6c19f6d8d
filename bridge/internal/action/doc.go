// Package action owns gopls's code actions as goplsmcp uses them: asking
// gopls for the actions on a range of a source (Asker.List), the edits an
// action proposes, computed by gopls on request when it sent them lazily
// (Asker.Edits), and the quick fixes of a file's diagnostics, each with
// its edits (Asker.QuickFixes, Fix). Actions that only run a gopls command
// are never run.
//
// Imports: ask (gopls's failures as tool errors), render, buffer, edit
// and lspclient (the gopls asked); besides, the standard library and
// go.lsp.dev/protocol.
package action
