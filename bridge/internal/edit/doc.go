// Package edit owns edits as a model sees them: LSP text edits made on a
// text (Apply), unified diffs (UnifiedDiff), the edit sets built from
// gopls's workspace edits with the bytes each applies to (Set, From: only
// files inside the root, never another session's snippet, never a file
// saved since gopls was asked), and the only path by which
// goplsmcp writes files: a set of new file contents, each computed from
// bytes whose hash it carries, written all or nothing. Every target is
// re-checked under a process-wide per-file lock immediately before it is
// replaced: it must still resolve to the same file inside the root and
// hold exactly the bytes the edits were computed from, or nothing is
// written. A file is replaced by renaming a temporary file over it, with
// its mode, owner and group; a hard-linked file, or one whose owner cannot
// be kept, is written in place under the same checks. No temporary file
// outlives a call. The write is recorded in a journal outside the root
// before its first file is replaced, and removed after its last: a write
// that fails part-way puts back what it wrote, and one a crash cut short
// is rolled back at the next start on the root (Recover).
//
// It also owns how the edit tools answer with a set (Proposer): the
// changes as a count and a unified diff (Changes, with the Position,
// Range and Edit of a listed edit), written only when writes are allowed
// and the call says apply: true (Write), and then bounded so that a call
// that wrote never fails for the size of its answer.
//
// Imports: render (echoes in messages), place and lspclient (file URIs);
// besides, the standard library and go.lsp.dev/protocol. bridge passes
// in what a set needs of gopls and the session (Source, Proposer) as
// functions.
package edit
