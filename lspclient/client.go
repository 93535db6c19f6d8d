package lspclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
)

// Sentinel errors that callers branch on.
var (
	// ErrTimeout means gopls stopped working on a request (a
	// [*StuckError]) or did not take a request in time: it was not
	// running, or did not read what was sent before it.
	ErrTimeout = errors.New("gopls did not answer in time")
	// ErrLoadTimeout means gopls did not finish loading the workspace
	// within the load timeout.
	ErrLoadTimeout = errors.New("gopls did not finish loading the workspace in time")
	// ErrExited means the gopls process ended while a request was pending.
	ErrExited = errors.New("gopls exited")
	// ErrClosed means the client has been closed.
	ErrClosed = errors.New("the gopls client is closed")
	// ErrCrashLoop means gopls ended unexpectedly too often in a short time;
	// requests fail at once until the client starts it again.
	ErrCrashLoop = errors.New("gopls keeps crashing")
)

// DefaultTimeout is the stall window when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// DefaultLoadTimeout bounds the wait for gopls's workspace load when
// Options.LoadTimeout is zero: a large repository with an empty gopls
// cache takes minutes, and the first call must not fail for that.
const DefaultLoadTimeout = 10 * time.Minute

// Defaults of the crash-loop policy: this many unexpected ends of gopls
// within the window make the client stop restarting it until the window
// allows another start.
const (
	DefaultCrashLimit  = 5
	DefaultCrashWindow = time.Minute
)

// Options configure a [Client].
type Options struct {
	// Gopls is the path of the gopls binary (see [Locate]).
	Gopls string
	// Args are extra command-line arguments for gopls, before its serve
	// command.
	Args []string
	// Remote, if set, starts gopls as a forwarder to a shared gopls
	// daemon: "auto" (the daemon editors share, started if none runs),
	// "auto;ID", "unix;PATH" or a TCP host:port. The forwarder is the
	// client's child and is stopped and restarted like gopls; the daemon
	// is not the client's and outlives it.
	Remote string
	// Root is the absolute, symlink-free workspace root.
	Root string
	// Watch chooses how changes on disk are seen (see [WatchStrategies]):
	// "auto" (the default) is inotify on Linux, falling back to "poll"
	// when inotify cannot be had or its watches run out, and "poll"
	// elsewhere; "off" checks only the documents opened from disk.
	Watch string
	// Env holds KEY=VALUE pairs added to gopls's environment.
	Env []string
	// AllowNetwork lets the go command that gopls runs download modules
	// and toolchains. Without it gopls runs with GOPROXY=off and
	// GOTOOLCHAIN=local (or the toolchain the user's GOTOOLCHAIN names,
	// run only if it is already here), and -mod=mod dropped from GOFLAGS
	// (the go command's own module mode, read-only or vendor, is kept).
	AllowNetwork bool
	// Settings are gopls settings, sent as initializationOptions and in
	// answer to workspace/configuration. Keys here override the defaults.
	Settings map[string]any
	// Logger receives the client's log and gopls's stderr; nil discards.
	Logger *slog.Logger
	// Timeout (default 30 s) is the stall window: a request fails when
	// gopls shows no sign of work on it for that long (stall.go), never
	// because it is slow. It also bounds each write to gopls and the wait
	// for a gopls being restarted.
	Timeout time.Duration
	// LoadTimeout bounds the wait for gopls's workspace load (default
	// 10 min), whatever gopls does meanwhile: requests made during the
	// load wait for it, and initialize, within it.
	LoadTimeout time.Duration
	// CrashLimit and CrashWindow set the crash-loop policy (defaults 5 and
	// one minute): after CrashLimit unexpected ends of gopls within
	// CrashWindow, requests fail with [ErrCrashLoop] until the oldest of
	// them is older than CrashWindow; then gopls is started again.
	CrashLimit  int
	CrashWindow time.Duration
	// OnMessage, if set, receives gopls's window/logMessage and
	// window/showMessage texts. It must not block.
	OnMessage func(level slog.Level, text string)
	// OnProgress, if set, receives gopls's $/progress reports. It must not
	// block.
	OnProgress func(p Progress)
	// OnDiagnostics, if set, receives each textDocument/publishDiagnostics
	// as gopls sends it, after [Client.PublishedDiagnostics] holds it: the
	// file's URI and its diagnostics (none when gopls cleared them). It
	// runs on the goroutine that reads gopls's output, so it must not
	// block.
	OnDiagnostics func(uri string, diagnostics []protocol.Diagnostic)
}

// A Client is the one owner of gopls. It starts gopls, keeps the LSP
// session's state (open documents, published diagnostics, progress), and
// survives gopls: when gopls dies or stops answering, its supervisor
// starts a new one, sends it the open documents again, and requests that
// the death interrupted are retried once.
type Client struct {
	opts Options
	log  *slog.Logger

	docs  documents
	notes noteQueue // see notes.go
	files fileCache
	diags diagnosticStore
	prog  progressTracker
	watch *watcher

	// mu guards the supervisor's state that requests read.
	mu       sync.Mutex
	cur      *process      // the running gopls; nil while none is ready
	changed  chan struct{} // closed and replaced when the state changes
	closed   bool
	failing  bool      // in a crash loop: requests fail at once
	retryAt  time.Time // when a failing client starts gopls again
	deaths   []time.Time
	restarts int
	lastExit string
	gopls    GoplsBuild // what gopls said of its build at initialize
	// capabilities are gopls's server capabilities, from its initialize
	// result (see capabilities.go).
	capabilities json.RawMessage

	pid atomic.Int64 // of the last gopls started
	// kills records the processes gopls ran that the watch of its
	// children killed (children_linux.go): n counts them, list keeps the
	// last few, for the requests that waited for them (see watched).
	kills struct {
		sync.Mutex
		n    uint64
		list []childKill
	}
	// diagnoseSeq numbers the progress tokens of workspace diagnoses.
	diagnoseSeq atomic.Int64
	// mods counts every change told to gopls, answers those that may
	// change an answer (see generation.go).
	mods, answers atomic.Uint64
	// diagnosed holds, by file URI, the generation at which gopls last
	// diagnosed the file's view in full (see DiagnoseFiles).
	diagnosedMu sync.Mutex
	diagnosed   map[string]uint64

	life     context.Context // ends when Close is called
	stopLife context.CancelFunc
	done     chan struct{}  // closed when the supervisor has ended
	bg       sync.WaitGroup // the notes' writer
	flights  flights        // requests others may join (join.go)
	editors  editorSet      // editors served beside the client's calls (editor.go)
	prio     priority       // the editors' requests first (priority.go)
	renew    renewal        // when to renew gopls's view (renew.go)
	recycle  chan *process  // a gopls to replace for its memory (recycle.go)

	closeOnce sync.Once
}

// Start spawns gopls for opts.Root and initializes the LSP session. It
// returns once gopls has answered initialize; the workspace may still be
// loading (see [Client.WaitLoaded]).
func Start(ctx context.Context, opts Options) (*Client, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.LoadTimeout <= 0 {
		opts.LoadTimeout = DefaultLoadTimeout
	}
	if opts.CrashLimit <= 0 {
		opts.CrashLimit = DefaultCrashLimit
	}
	if opts.CrashWindow <= 0 {
		opts.CrashWindow = DefaultCrashWindow
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{opts: opts, log: log, changed: make(chan struct{}), done: make(chan struct{}), recycle: make(chan *process, 1)}
	c.life, c.stopLife = context.WithCancel(context.Background())
	c.docs.init()
	c.notes.init()
	c.files.racy = racyWindow
	c.diags.init()
	c.prog.init(opts.OnProgress)

	c.bg.Go(c.writeNotes)
	c.startWatching()
	started := make(chan error, 1)
	go c.supervise(ctx, started)
	if err := <-started; err != nil {
		c.stopWatching()
		c.stopLife()
		<-c.done
		c.bg.Wait()
		return nil, err
	}
	return c, nil
}

// PID returns the process id of the gopls last started.
func (c *Client) PID() int { return int(c.pid.Load()) }

// Version returns gopls's version as it reported it, e.g. "v0.24.0".
func (c *Client) Version() string { return c.GoplsBuild().Version }

// GoplsBuild returns what the gopls last started said of its build (see
// [GoplsBuild]).
func (c *Client) GoplsBuild() GoplsBuild {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gopls
}

// Remote returns the address of the gopls daemon the client's gopls
// forwards to, or "" when gopls is not shared.
func (c *Client) Remote() string { return c.opts.Remote }

// AllowsNetwork reports whether gopls's go command may download modules
// and toolchains (Options.AllowNetwork).
func (c *Client) AllowsNetwork() bool { return c.opts.AllowNetwork }

// Root returns the workspace root gopls was started on.
func (c *Client) Root() string { return c.opts.Root }

// Health describes the state of the gopls the client owns.
type Health struct {
	// State is "running", "restarting", "crash-loop" or "closed".
	State string
	// PID is the process id of the gopls last started.
	PID int
	// Restarts counts the times gopls ended unexpectedly or failed to
	// start, each followed by an attempt to start it again.
	Restarts int
	// LastExit says why gopls last ended unexpectedly, if it did.
	LastExit string
}

// Health returns the current state of gopls.
func (c *Client) Health() Health {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := Health{PID: c.PID(), Restarts: c.restarts, LastExit: c.lastExit}
	switch {
	case c.closed:
		h.State = "closed"
	case c.failing:
		h.State = "crash-loop"
	case c.cur != nil && c.cur.ctx.Err() == nil:
		h.State = "running"
	default:
		h.State = "restarting"
	}
	return h
}

// Call sends a request to gopls and decodes its result into result, which
// may be nil. The request waits as long as gopls works on it: it fails
// with a [*StuckError] only when gopls shows no sign of work for the stall
// window (Options.Timeout; see stall.go), and, when sent during the
// workspace load, when the load outlasts the load timeout. When ctx is
// cancelled or the request fails, gopls is told to stop with
// $/cancelRequest. While gopls is being restarted the request waits for
// it, within the request timeout. If gopls dies while the request is
// pending, the request is sent once more to the gopls that replaces it.
//
// Before it is sent, gopls is told of the files changed on disk and of
// every change to the open documents made before the call. A request
// under a context from [WorkspaceWide] also waits until gopls has loaded
// the packages in new directories found so far; other requests do not.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.traced(ctx, method, method, params, result)
}

// workspaceKey marks the context of a workspace-wide call.
type workspaceKey struct{}

// WorkspaceWide returns ctx marked as the context of a call whose answer
// spans the workspace — a symbol search, the workspace's diagnostics,
// references, renames, implementations, the package graph — rather than
// one place in files gopls already knows. Requests made under it wait
// until gopls has loaded the packages of the new directories found on
// disk so far (a branch switch, a code generator), so that the answer
// includes them; they wait for those loads only. Requests under other
// contexts are never delayed by the loads.
func WorkspaceWide(ctx context.Context) context.Context {
	return context.WithValue(ctx, workspaceKey{}, true)
}

func isWorkspaceWide(ctx context.Context) bool {
	wide, _ := ctx.Value(workspaceKey{}).(bool)
	return wide
}

// traced is Call, recording each attempt under name in the context's
// trace (see [WithTrace]).
func (c *Client) traced(ctx context.Context, name, method string, params, result any) error {
	defer c.beginRequest(ctx)()
	release, err := c.editorFirst(ctx)
	if err != nil {
		return err
	}
	defer release()
	// Files changed on disk are told to gopls before it answers.
	c.watch.barrier()
	if isWorkspaceWide(ctx) {
		began := time.Now()
		err := c.watch.awaitLoads(ctx)
		if time.Since(began) > time.Millisecond || err != nil {
			record(ctx, "waiting for new packages to load", began, err)
		}
		if err != nil {
			return err
		}
	}
	began := time.Now()
	err = c.joined(ctx, c.mods.Load(), method, params, result)
	record(ctx, name, began, err)
	if errors.Is(err, ErrExited) && ctx.Err() == nil {
		c.log.Info("gopls ended during a request; retrying it once", "method", method)
		began = time.Now()
		err = c.joined(ctx, c.mods.Load(), method, params, result)
		record(ctx, name, began, err)
	}
	return err
}

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	waitCtx, cancel := c.callContext(ctx)
	defer cancel()
	p, err := c.ready(waitCtx)
	if err != nil {
		return c.requestError(ctx, method, err, "gopls is restarting and did not come back")
	}
	// The changes made before the request reach gopls first.
	if err := c.flush(waitCtx); err != nil {
		if errors.Is(err, ErrTimeout) && ctx.Err() == nil {
			c.suspect(p)
		}
		return c.requestError(ctx, method, err, "gopls did not read the changes sent before the request")
	}
	reqCtx, cancelReq := c.requestContext(ctx)
	defer cancelReq()
	err = c.watched(reqCtx, p, method, params, func(ctx context.Context) error {
		return p.call(ctx, method, params, result)
	})
	var stuck *StuckError
	if errors.As(err, &stuck) {
		return err
	}
	if errors.Is(err, ErrLoadTimeout) && ctx.Err() == nil {
		c.suspect(p)
	}
	return c.requestError(ctx, method, err, "")
}

// callContext bounds what a request waits for before it is sent: a gopls
// being restarted, and the changes queued before it being written. Those
// waits are not gopls's work on the request, so they have fixed bounds:
// the request timeout, or the load timeout while gopls loads the
// workspace (it reads nothing else meanwhile). The context's cause is
// ErrTimeout, or a *LoadTimeoutError when the load was not over.
func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return c.loadBounded(ctx, true)
}

// requestContext bounds a request once sent. gopls answers nothing until
// its workspace load is over, which takes as long as the workspace is
// big: a request sent during the load waits in gopls's queue (where a
// cancellation still reaches it) for up to the load timeout. After the
// load it has no fixed bound: it waits as long as gopls works on it, and
// the stall watch (stall.go) ends it when gopls stops working.
func (c *Client) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return c.loadBounded(ctx, false)
}

// loadBounded is ctx bounded by the load timeout while the workspace
// loads, then, if afterLoad, by the request timeout.
func (c *Client) loadBounded(ctx context.Context, afterLoad bool) (context.Context, context.CancelFunc) {
	c.prog.mu.Lock()
	loaded := c.prog.loaded
	c.prog.mu.Unlock()
	select {
	case <-loaded:
		if afterLoad {
			return context.WithTimeoutCause(ctx, c.opts.Timeout, ErrTimeout)
		}
		return context.WithCancel(ctx)
	default:
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(c.opts.LoadTimeout, func() {
		select {
		case <-loaded:
			if afterLoad {
				cancel(ErrTimeout)
			}
		default:
			cancel(&LoadTimeoutError{Bound: c.opts.LoadTimeout})
		}
	})
	go func() {
		select {
		case <-loaded:
			// Stopped before it fired: the load is over in time.
			if timer.Stop() && afterLoad {
				timer.Reset(c.opts.Timeout)
			}
		case <-callCtx.Done():
		}
	}()
	return callCtx, func() {
		timer.Stop()
		cancel(context.Canceled)
	}
}

// requestError words the failure of one request: the caller's own
// cancellation as ctx.Err(), the timeout with the bound that was passed.
func (c *Client) requestError(ctx context.Context, method string, err error, what string) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrTimeout):
		if what != "" {
			return fmt.Errorf("%s: %w: %s within %s", method, ErrTimeout, what, c.opts.Timeout)
		}
		return fmt.Errorf("%s: %w after %s", method, ErrTimeout, c.opts.Timeout)
	}
	return err
}

// A ResponseError is an error answer from gopls.
type ResponseError struct {
	Method  string
	Code    int
	Message string
}

func (e *ResponseError) Error() string { return e.Message }

// Notify sends a notification to gopls. While gopls is being restarted it
// waits for it, within the client's timeout. The notification is queued
// behind the client's own (see notes.go) and written in order; requests
// made after Notify returns follow it. A notification to a gopls that
// dies is not sent again: its replacement starts from the files on disk,
// the client's settings and the open documents, which is what
// notifications about them would have told it.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	waitCtx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, ErrTimeout)
	defer cancel()
	if _, err := c.ready(waitCtx); err != nil {
		return c.requestError(ctx, method, err, "gopls is restarting and did not come back")
	}
	c.notes.enqueue(method, params)
	// What a notification changes is unknown here: count it as a change.
	c.modified()
	return nil
}

// ExecuteCommand runs a gopls command (workspace/executeCommand) with the
// given arguments and decodes its result into result, which may be nil.
func (c *Client) ExecuteCommand(ctx context.Context, command string, args any, result any) error {
	params := map[string]any{"command": command}
	if args != nil {
		params["arguments"] = []any{args}
	}
	return c.traced(ctx, "workspace/executeCommand "+command, "workspace/executeCommand", params, result)
}

// Close shuts gopls down: shutdown and exit requests, then closing its
// input, then SIGTERM, then SIGKILL, each after a short wait. When it
// returns the process has been reaped and every goroutine of the client has
// ended. Requests still pending fail with [ErrClosed].
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.stopWatching()
		c.mu.Lock()
		c.closed = true
		c.broadcastLocked()
		c.mu.Unlock()
		c.stopLife()
		<-c.done
		c.bg.Wait()
		c.flights.wg.Wait()
		c.docs.mu.Lock()
		if c.docs.overlay != "" {
			_ = os.Remove(c.docs.overlay)
		}
		c.docs.mu.Unlock()
	})
	return nil
}

// Exited returns a channel that is closed once gopls has stopped for good
// and been reaped, which happens only when the client is closed: a gopls
// that ends unexpectedly is replaced.
func (c *Client) Exited() <-chan struct{} { return c.done }

// ready returns the running gopls, waiting while one is being started. It
// fails at once when the client is closed or in a crash loop.
func (c *Client) ready(ctx context.Context) (*process, error) {
	for {
		c.mu.Lock()
		p, changed := c.cur, c.changed
		err := c.unavailableLocked()
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if p != nil && p.ctx.Err() == nil {
			return p, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// live returns the running gopls, or nil if there is none right now.
func (c *Client) live() *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && c.cur.ctx.Err() == nil {
		return c.cur
	}
	return nil
}

// state returns a channel closed at the next change of the supervisor's
// state, and the error requests get now if they cannot be served at all.
func (c *Client) state() (<-chan struct{}, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed, c.unavailableLocked()
}

func (c *Client) unavailableLocked() error {
	switch {
	case c.closed:
		return ErrClosed
	case c.failing:
		wait := time.Until(c.retryAt).Round(time.Second)
		return fmt.Errorf("%w: it stopped %d times within %s (last: %s); goplsmcp starts it again in %s",
			ErrCrashLoop, len(c.deaths), c.opts.CrashWindow, c.lastExit, max(wait, time.Second))
	}
	return nil
}

// broadcastLocked wakes everyone waiting for the state to change.
func (c *Client) broadcastLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// initialize runs the LSP handshake with a new process. It returns once
// gopls has answered initialize and been sent initialized.
func (c *Client) initialize(ctx context.Context, p *process) error {
	// gopls answers initialize before it loads anything, but a busy
	// machine may be slow to run it: bounded by the stall watch, and by
	// the load timeout whatever gopls does.
	ctx, cancel := context.WithTimeoutCause(ctx, c.opts.LoadTimeout, &LoadTimeoutError{Bound: c.opts.LoadTimeout})
	defer cancel()
	var res struct {
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	err := c.watched(ctx, p, "initialize", nil, func(ctx context.Context) error {
		return p.call(ctx, "initialize", c.initializeParams(), &res)
	})
	if err != nil {
		return fmt.Errorf("initializing gopls: %w", err)
	}
	build := parseGoplsBuild(res.ServerInfo.Version)
	if err := checkGopls(build.Version); err != nil {
		return err
	}
	c.mu.Lock()
	c.gopls = build
	c.capabilities = res.Capabilities
	c.mu.Unlock()
	if err := p.notify("initialized", struct{}{}); err != nil {
		return fmt.Errorf("initializing gopls: %w", err)
	}
	return nil
}

// markLoadedWhenIdle marks the end of the initial workspace load of p.
// gopls handles requests in order and "initialized" blocks until the
// workspace is loaded, so the answer to any request sent after it marks
// the end of the load. The request is bounded only by the life of p: a
// large workspace may take long to load, and a gopls that hangs meanwhile
// is caught by the bounded wait in [Client.DiagnoseWorkspace].
func (c *Client) markLoadedWhenIdle(p *process) {
	p.goBG(func() {
		err := p.call(context.Background(), "workspace/executeCommand", map[string]any{"command": "gopls.views"}, nil)
		var re *ResponseError
		switch {
		case err == nil, errors.As(err, &re):
			// Any answer means the queue moved past initialized.
			c.prog.markLoaded(nil)
			// Answers given during the load may lack what it found.
			c.modified()
		case p.ctx.Err() != nil:
			// The next gopls loads again; the supervisor resets the state.
		default:
			c.prog.markLoaded(err)
		}
	})
}
