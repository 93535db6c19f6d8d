// Package ask owns how the tools ask gopls, where every tool asks it the
// same way: how a failed request reads as a tool error (Error: gopls's
// own message on one line and bounded, a load or a request that took too
// long, a gopls that stopped working, and ErrRestarted, the one error a
// restart of gopls causes), and a list's entries asked a few at a time
// (ForEach). Every package that sends gopls a request turns its failure
// into a tool error here, so that a failure reads the same from every
// tool.
//
// Imports: render (gopls's messages clipped like any echo) and lspclient
// (the client's errors); besides, the standard library.
package ask
