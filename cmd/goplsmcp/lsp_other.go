//go:build !unix

package main

import (
	"context"
	"io"
	"net"

	"github.com/goplsmcp/goplsmcp/lspclient"
)

// handOffSupported: no descriptors pass over this system's sockets, so
// goplsmcp lsp relays the editor's stdio (and, without the shared daemon,
// does not run at all).
const handOffSupported = false

const lspHandedHandler = "lsp-handed"

func handStdio(io.Reader, io.Writer, func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, []byte) (*lspclient.Handed, error) {
	return nil
}

func (st *stack) serveHandedEditor(context.Context, net.Conn, io.Reader, string) error {
	return nil
}
