package lspclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Sentinel errors that callers branch on.
var (
	// ErrTimeout means gopls did not answer within the request timeout.
	ErrTimeout = errors.New("gopls did not answer in time")
	// ErrExited means the gopls process ended while a request was pending.
	ErrExited = errors.New("gopls exited")
	// ErrClosed means the client has been closed.
	ErrClosed = errors.New("the gopls client is closed")
)

// DefaultTimeout bounds each request to gopls when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Options configure a [Client].
type Options struct {
	// Gopls is the path of the gopls binary (see [Locate]).
	Gopls string
	// Args are extra command-line arguments for gopls.
	Args []string
	// Root is the absolute, symlink-free workspace root.
	Root string
	// Env holds KEY=VALUE pairs added to gopls's environment.
	Env []string
	// Settings are gopls settings, sent as initializationOptions and in
	// answer to workspace/configuration. Keys here override the defaults.
	Settings map[string]any
	// Logger receives the client's log and gopls's stderr; nil discards.
	Logger *slog.Logger
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
	// OnMessage, if set, receives gopls's window/logMessage and
	// window/showMessage texts. It must not block.
	OnMessage func(level slog.Level, text string)
	// OnProgress, if set, receives gopls's $/progress reports. It must not
	// block.
	OnProgress func(p Progress)
}

// A Client owns one gopls process and the LSP session with it.
type Client struct {
	opts Options
	log  *slog.Logger

	proc *process

	docs  documents
	diags diagnosticStore
	prog  progressTracker
	watch *watcher

	// serverVersion is gopls's version, from its initialize result.
	serverVersion string
	// capabilities are gopls's server capabilities, from its initialize
	// result (see capabilities.go).
	capabilities json.RawMessage

	closeOnce sync.Once
	closeErr  error
}

// Start spawns gopls for opts.Root and initializes the LSP session. It
// returns once gopls has answered initialize; the workspace may still be
// loading (see [Client.WaitLoaded]).
func Start(ctx context.Context, opts Options) (*Client, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{opts: opts, log: log}
	c.docs.init()
	c.diags.init()
	c.prog.init(opts.OnProgress)
	c.startWatching()

	p, err := spawn(opts, log, c.handle)
	if err != nil {
		c.stopWatching()
		return nil, err
	}
	c.proc = p
	if err := c.initialize(ctx); err != nil {
		c.stopWatching()
		p.stop(log)
		return nil, err
	}
	return c, nil
}

// PID returns the process id of the gopls child.
func (c *Client) PID() int { return c.proc.cmd.Process.Pid }

// Version returns gopls's version as it reported it, e.g. "v0.23.0".
func (c *Client) Version() string { return c.serverVersion }

// Root returns the workspace root gopls was started on.
func (c *Client) Root() string { return c.opts.Root }

// Call sends a request to gopls and decodes its result into result, which
// may be nil. The request is bounded by the client's timeout; when ctx is
// cancelled or the time is up, gopls is told to stop with $/cancelRequest.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	// Files changed on disk are told to gopls before it answers.
	c.watch.barrier()
	p := c.proc
	callCtx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, ErrTimeout)
	defer cancel()
	// The connection does not fail pending calls when the process dies, so
	// the call also ends when the process does.
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()

	id, err := p.conn.Call(callCtx, method, params, result)
	switch {
	case err == nil:
		return nil
	case p.ctx.Err() != nil:
		return fmt.Errorf("%s: %w", method, ErrExited)
	case callCtx.Err() != nil:
		// Tell gopls to stop working on it; a late answer is dropped.
		_ = p.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: %w after %s", method, ErrTimeout, c.opts.Timeout)
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return &ResponseError{Method: method, Code: int(rpcErr.Code), Message: rpcErr.Message}
	}
	return fmt.Errorf("%s: %w", method, err)
}

// A ResponseError is an error answer from gopls.
type ResponseError struct {
	Method  string
	Code    int
	Message string
}

func (e *ResponseError) Error() string { return e.Message }

// Notify sends a notification to gopls.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if err := c.proc.conn.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// ExecuteCommand runs a gopls command (workspace/executeCommand) with the
// given arguments and decodes its result into result, which may be nil.
func (c *Client) ExecuteCommand(ctx context.Context, command string, args any, result any) error {
	params := map[string]any{"command": command}
	if args != nil {
		params["arguments"] = []any{args}
	}
	return c.Call(ctx, "workspace/executeCommand", params, result)
}

// Close shuts gopls down: shutdown and exit requests, then closing its
// input, then SIGTERM, then SIGKILL, each after a short wait. When it
// returns the process has been reaped and every goroutine of the client has
// ended.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.stopWatching()
		c.closeErr = c.proc.stop(c.log)
	})
	return c.closeErr
}

// Exited returns a channel closed when the gopls process has ended.
func (c *Client) Exited() <-chan struct{} { return c.proc.exited }

func (c *Client) initialize(ctx context.Context) error {
	var res struct {
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := c.Call(ctx, "initialize", c.initializeParams(), &res); err != nil {
		return fmt.Errorf("initializing gopls: %w", err)
	}
	c.serverVersion = parseGoplsVersion(res.ServerInfo.Version)
	c.capabilities = res.Capabilities
	if err := c.Notify(ctx, "initialized", struct{}{}); err != nil {
		return fmt.Errorf("initializing gopls: %w", err)
	}
	// gopls handles requests in order and "initialized" blocks until the
	// workspace is loaded, so the answer to any request sent now marks the
	// end of the initial load.
	c.proc.bg.Go(func() {
		err := c.Call(c.proc.ctx, "workspace/executeCommand", map[string]any{"command": "gopls.views"}, nil)
		c.prog.markLoaded(err)
	})
	return nil
}

// parseGoplsVersion extracts the module version from gopls's serverInfo
// version, which is a JSON rendering of its build information.
func parseGoplsVersion(v string) string {
	var info struct {
		Main struct {
			Version string
		}
		Version string
	}
	if json.Unmarshal([]byte(v), &info) == nil {
		if info.Main.Version != "" {
			return info.Main.Version
		}
		if info.Version != "" {
			return info.Version
		}
	}
	return v
}
