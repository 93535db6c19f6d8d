package lspclient

import (
	"context"
	"encoding/json"
	"net"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// editorOnPipe serves an editor of c on a pipe and returns the editor's
// end, initialized.
func editorOnPipe(t *testing.T, ctx context.Context, c *Client) jsonrpc2.Conn {
	t.Helper()
	ours, theirs := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- c.ServeEditor(ctx, ours, EditorOptions{}) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(theirs))
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return reply(ctx, nil, nil)
	})
	t.Cleanup(func() {
		conn.Close()
		<-served
	})
	var res json.RawMessage
	if _, err := conn.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, &res); err != nil {
		t.Fatalf("the editor's initialize: %v", err)
	}
	return conn
}
