// Package lspclient owns the gopls child process: it finds the binary,
// spawns it, speaks LSP to it over stdio, answers the requests gopls makes
// of its client, keeps open documents (with leases that keep one version
// of a document while a call uses it) and published diagnostics, tells
// gopls about files changed on disk before each request, tracks gopls's
// progress reports, and shuts it down.
//
// It knows nothing of MCP and may not import any other package of this
// module. Exactly one [Client] owns one gopls process; every goroutine it
// starts has ended when [Client.Close] returns.
package lspclient
