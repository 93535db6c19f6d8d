// Package lspclient owns the gopls child process: it finds the binary,
// spawns it, refuses one older than it supports (version.go: what gopls
// says of its build at initialize, which is also which Go built it),
// speaks LSP to it over stdio, answers the requests gopls makes
// of its client, keeps open documents (with leases that keep one version
// of a document while a call uses it) and published diagnostics, tells
// gopls about files changed on disk before each request (inotify on Linux,
// else a scan of the tree with bounded descriptors: [Options.Watch]),
// has gopls load
// the packages of new directories, tracks gopls's progress reports,
// bounds every request in time, replaces a gopls that dies or stops
// answering (re-sending the open documents and retrying the interrupted
// request), renews gopls's view when gopls keeps the packages of
// closed files for nothing (renew.go), replaces at such a moment a gopls
// grown well past its settled size (recycle.go), and shuts it down. It
// also serves editors on the same gopls
// ([Client.ServeEditor], editor.go) and relays an editor's stdio to such a
// server, or stands by while the server holds that stdio itself, keeping
// its buffers across the server's death ([RelayEditor]).
//
// It knows nothing of MCP and may not import any other package of this
// module. A [Client] owns one gopls at a time through a single supervisor
// goroutine, the only code that starts and stops processes; every goroutine
// the client starts has ended when [Client.Close] returns. gopls is the
// only subprocess it runs for its own work; it is bounded by the request
// timeout and the hang detection, and stopped within two seconds by Close.
// What gopls runs — the go command and the tools it runs — is watched
// apart on Linux (children_linux.go): a process past its bound, or
// blocked on a file that is not a regular file, is killed.
//
// It also owns how processes end with goplsmcp, however goplsmcp ends: on
// Unix a guard (a shell reading a pipe only goplsmcp writes) kills gopls's
// process group, and those of commands prepared with [GuardCommand], when
// the pipe closes; on Windows a job object that is killed when its last
// handle closes holds gopls's tree.
//
// # Locks
//
// No lock is held across a request to gopls or a write to gopls's pipe:
// a gopls that is slow, or that stops reading its input, delays only the
// requests that wait for its answers, never the client's bookkeeping nor
// callers that do not need gopls. What must reach gopls in order —
// documents opened, changed and closed, files changed on disk — is queued
// under the lock of the state it reports and written, after the lock is
// released, by the one goroutine that writes notifications (notes.go);
// each request first waits until what was queued before it is written.
// The bytes of each message are serialised by the JSON-RPC connection's
// own write lock, which nothing of this package holds anything while
// taking, and each write is bounded by the timeout (a write that cannot
// finish fails the process).
//
// The loads of new packages are requests like any other, made apart from
// the barrier that found them, so that a call about files gopls knows is
// not delayed by them; a call marked [WorkspaceWide] waits for them.
//
// When locks nest they are taken in this order, and never the other way:
//
//  1. the watcher's lock (watcher.mu), held by each barrier;
//  2. the document table's (documents.mu);
//  3. the notification queue's (noteQueue.mu) or the supervisor state's
//     (Client.mu), never both.
//
// The file cache's lock (fileCache.mu) and the poller's (poller.mu) are
// taken under the watcher's, or alone; the renewal's (renewal.mu), the
// file cache's and the diagnosed-files record's under the document
// table's, when a renewal forgets what it makes stale. The other locks — of the diagnostics store, the progress
// tracker, the diagnosed-files record, a process, the result table and a
// trace — are taken alone, for a few statements.
package lspclient
