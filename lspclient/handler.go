package lspclient

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// handle answers what gopls sends its client. It runs on the connection's
// reading goroutine, so it never blocks.
func (c *Client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	params := req.Params()
	c.editors.fromGopls(req.Method(), params)
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		if uri, diags, ok := c.diags.publish(params); ok && c.opts.OnDiagnostics != nil {
			c.opts.OnDiagnostics(uri, diags)
		}
		return nil
	case "$/progress":
		c.prog.report(params)
		return nil
	case "window/logMessage", "window/showMessage":
		var m struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &m) == nil {
			c.message(ctx, m.Type, m.Message)
		}
		return nil
	case "window/workDoneProgress/create":
		var p struct {
			Token json.RawMessage `json:"token"`
		}
		_ = json.Unmarshal(params, &p)
		c.prog.create(p.Token)
		return reply(ctx, nil, nil)
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		res := make([]any, len(p.Items))
		for i := range res {
			res[i] = c.settings()
		}
		return reply(ctx, res, nil)
	case "workspace/workspaceFolders":
		return reply(ctx, c.workspaceFolders(), nil)
	case "client/registerCapability", "client/unregisterCapability":
		return reply(ctx, nil, nil)
	case "workspace/applyEdit", "window/showDocument", "window/showMessageRequest":
		if c.editors.toEditor(ctx, reply, req) {
			return nil
		}
	}
	switch req.Method() {
	case "workspace/applyEdit":
		// Edits are returned to the caller, never applied behind its back.
		return reply(ctx, map[string]any{"applied": false, "failureReason": "goplsmcp does not apply edits for gopls"}, nil)
	case "window/showMessageRequest", "window/showDocument":
		return reply(ctx, nil, nil)
	case "workspace/semanticTokens/refresh", "workspace/codeLens/refresh",
		"workspace/inlayHint/refresh", "workspace/diagnostic/refresh", "workspace/inlineValue/refresh":
		return reply(ctx, nil, nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not supported by goplsmcp: %s", req.Method()))
	}
	return nil
}

// message logs a window/logMessage or window/showMessage of gopls's and
// hands it to OnMessage: at its own level there, four below in the
// client's log (which has its own lines for what matters to it); shutdown
// chatter at debug in both.
func (c *Client) message(ctx context.Context, typ int, text string) {
	level, logLevel := messageLevel(typ), messageLevel(typ)-4
	if shutdownChatter(text) {
		level, logLevel = slog.LevelDebug, slog.LevelDebug
	}
	c.log.Log(ctx, logLevel, "gopls message", "text", text)
	if c.opts.OnMessage != nil {
		c.opts.OnMessage(level, text)
	}
}

// shutdownChatter reports whether a message of gopls's only says that
// work it had under way was dropped because it is shutting down, such as
// "warning: while diagnosing orphaned files: session is shut down", which
// gopls (v0.23 on every such meeting) sends as an error when its exit
// meets a diagnosis, as a one-shot call's often does: nothing a user can
// act on, so it is kept for debug.
// The texts are those of gopls's errors for a session, server or view
// that is shut down.
func shutdownChatter(text string) bool {
	for _, s := range []string{"session is shut down", "server is shut down", "view is shutdown"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// messageLevel maps an LSP MessageType to a log level.
func messageLevel(t int) slog.Level {
	switch t {
	case 1:
		return slog.LevelError
	case 2:
		return slog.LevelWarn
	case 3:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}
