package lspclient

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// DiagnoseFile returns gopls's current diagnostics for one file (parse,
// type and analyzer), computed on demand for the content gopls holds now.
func (c *Client) DiagnoseFile(ctx context.Context, uri string) ([]protocol.Diagnostic, error) {
	var report struct {
		Kind  string                `json:"kind"`
		Items []protocol.Diagnostic `json:"items"`
	}
	err := c.Call(ctx, "textDocument/diagnostic", map[string]any{
		"textDocument": map[string]any{"uri": uri},
	}, &report)
	if err != nil {
		return nil, err
	}
	return report.Items, nil
}

// DiagnoseWorkspace has gopls diagnose the whole workspace view that
// contains the Go file anyGoFile, and returns when gopls has published the
// results, so that [Client.PublishedDiagnostics] is current.
func (c *Client) DiagnoseWorkspace(ctx context.Context, anyGoFile string) error {
	if err := c.WaitLoaded(ctx); err != nil {
		return fmt.Errorf("waiting for the workspace to load: %w", err)
	}
	return c.ExecuteCommand(ctx, "gopls.diagnose_files", map[string]any{"Files": []string{anyGoFile}}, nil)
}
