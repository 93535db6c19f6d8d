// Package lspclient owns the gopls child process: it finds the binary,
// spawns it, speaks LSP to it over stdio, answers the requests gopls makes
// of its client, keeps open documents (with leases that keep one version
// of a document while a call uses it) and published diagnostics, tells
// gopls about files changed on disk before each request, tracks gopls's
// progress reports, bounds every request in time, replaces a gopls that
// dies or stops answering (re-sending the open documents and retrying the
// interrupted request), and shuts it down.
//
// It knows nothing of MCP and may not import any other package of this
// module. A [Client] owns one gopls at a time through a single supervisor
// goroutine, the only code that starts and stops processes; every goroutine
// the client starts has ended when [Client.Close] returns.
package lspclient
