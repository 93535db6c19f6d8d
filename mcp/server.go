package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Protocol versions this server speaks, newest first. A client asking for
// any other version is answered with the newest.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const latestVersion = "2025-11-25"

// The versions that introduced fields this server sends. Versions are dates,
// so they compare as strings.
const (
	// annotations on tools, the completions capability, message on
	// progress notifications.
	version20250326 = "2025-03-26"
	// title, outputSchema, structuredContent, resource_link content.
	version20250618 = "2025-06-18"
	// icons.
	version20251125 = "2025-11-25"
)

// Defaults for [Options] fields left zero.
const (
	DefaultMaxMessageBytes = 2 << 20
	DefaultMaxResultBytes  = 512 << 10
	DefaultMaxInFlight     = 8
	DefaultPageSize        = 100
)

// Options configure a [Server]. A nil *Options means all defaults.
type Options struct {
	// Title is the human-readable server name sent in serverInfo.
	Title string
	// Icons are the server's icons, sent in serverInfo to clients of
	// 2025-11-25 and later.
	Icons []Icon
	// Instructions is the guidance returned by initialize.
	Instructions string
	// Logger receives the server's own log; nil discards it.
	Logger *slog.Logger
	// MaxMessageBytes caps one incoming message (default 2 MiB).
	MaxMessageBytes int
	// MaxResultBytes caps the JSON of one tool result (default 512 KiB).
	// A larger result is replaced by an error result saying how to narrow
	// the call.
	MaxResultBytes int
	// MaxInFlight bounds the requests handled at once per session
	// (default 8). Up to eight times as many may wait their turn; beyond
	// that the session stops reading until one ends.
	MaxInFlight int
	// PageSize is the number of items in one page of tools/list,
	// resources/list and prompts/list (default 100).
	PageSize int
	// DrainTimeout is how long, once the context given to ServeStdio or
	// ServeStreamableHTTP is done, the calls in flight may go on to their
	// answers while new requests are refused; those still running then
	// are cancelled. Zero cancels them at once.
	DrainTimeout time.Duration
}

// An Icon is an image a client may show for the server, a tool, a
// resource or a prompt.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
}

// A ToolMiddleware runs around every tool call: it may observe ctx (and in
// it the call's decoded arguments, see [ToolInput]) and the tool's name,
// and must call next to run the tool.
type ToolMiddleware func(ctx context.Context, tool string, next func(context.Context) (any, error)) (any, error)

// A Server is a registry of tools, resources and prompts plus the options
// every session shares. It is safe for concurrent use; register everything
// before serving.
type Server struct {
	name    string
	version string
	opts    Options
	log     *slog.Logger

	mu         sync.RWMutex
	tools      []*serverTool
	index      map[string]*serverTool
	resources  []*serverResource
	resIndex   map[string]*serverResource
	prompts    []*serverPrompt
	promptIdx  map[string]*serverPrompt
	middleware []ToolMiddleware
	tracer     Tracer
	sessions   map[*session]struct{}
	endHooks   []func(id string)
	// handles, if the server offers them, are the modern calls' kept
	// state (see OfferHandles).
	handles *handleTable
	// toolCalls counts the tools/call requests served (see
	// LocalOptions.IdleUnused).
	toolCalls atomic.Int64
}

// NewServer returns a server that introduces itself as name at version.
func NewServer(name, version string, opts *Options) *Server {
	s := &Server{
		name:      name,
		version:   version,
		index:     make(map[string]*serverTool),
		resIndex:  make(map[string]*serverResource),
		promptIdx: make(map[string]*serverPrompt),
		sessions:  make(map[*session]struct{}),
	}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxMessageBytes <= 0 {
		s.opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if s.opts.MaxResultBytes <= 0 {
		s.opts.MaxResultBytes = DefaultMaxResultBytes
	}
	if s.opts.MaxInFlight <= 0 {
		s.opts.MaxInFlight = DefaultMaxInFlight
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = DefaultPageSize
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

func (s *Server) addTool(t *serverTool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.index[t.def.Name]; dup {
		return fmt.Errorf("tool %q registered twice", t.def.Name)
	}
	s.tools = append(s.tools, t)
	s.index[t.def.Name] = t
	return nil
}

func (s *Server) tool(name string) *serverTool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.index[name]
}

// handleTable returns the server's handles, or nil if it offers none.
func (s *Server) handleTable() *handleTable {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.handles
}

func (s *Server) toolList() []*serverTool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.tools)
}

// ToolNames returns the names of the registered tools, in the order they
// were registered.
func (s *Server) ToolNames() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.def.Name
	}
	return names
}

// KeepTools unregisters every tool not named in keep, so that clients
// neither see nor can call them. It fails, changing nothing, if keep names
// a tool that is not registered. Call it before serving.
func (s *Server) KeepTools(keep []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := make(map[string]bool, len(keep))
	var unknown []string
	for _, name := range keep {
		if _, ok := s.index[name]; !ok {
			unknown = append(unknown, name)
		}
		want[name] = true
	}
	if len(unknown) > 0 {
		return fmt.Errorf("no such tool: %s", strings.Join(unknown, ", "))
	}
	s.tools = slices.DeleteFunc(s.tools, func(t *serverTool) bool { return !want[t.def.Name] })
	for name := range s.index {
		if !want[name] {
			delete(s.index, name)
		}
	}
	return nil
}

// HasTool reports whether a tool of that name is registered.
func (s *Server) HasTool(name string) bool { return s.tool(name) != nil }

// AddToolMiddleware adds mw around every tool call, outside the ones added
// before it.
func (s *Server) AddToolMiddleware(mw ToolMiddleware) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.middleware = append(s.middleware, mw)
}

// runTool runs t, with its decoded arguments in, inside the middleware.
func (s *Server) runTool(ctx context.Context, t *serverTool, in any) (any, error) {
	s.mu.RLock()
	mws := slices.Clone(s.middleware)
	s.mu.RUnlock()
	next := func(ctx context.Context) (any, error) { return t.run(ctx, in) }
	for _, mw := range mws {
		inner := next
		next = func(ctx context.Context) (any, error) { return mw(ctx, t.def.Name, inner) }
	}
	return next(ctx)
}

func (s *Server) addSession(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[ss] = struct{}{}
}

// OnSessionEnd registers fn to be called with a session's id when the
// session has ended and every call it made has returned, so that state
// kept per session (see [SessionID]) can be dropped.
func (s *Server) OnSessionEnd(fn func(id string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endHooks = append(s.endHooks, fn)
}

func (s *Server) sessionEnded(id string) {
	s.mu.RLock()
	hooks := slices.Clone(s.endHooks)
	s.mu.RUnlock()
	for _, fn := range hooks {
		fn(id)
	}
}

func (s *Server) removeSession(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, ss)
}

// ServeStdio runs one session over a pair of streams, one JSON-RPC message
// per line, until in reaches its end or ctx is cancelled. At the end of
// input, calls already received are answered before it returns. When ctx
// is cancelled, the session drains: it goes on reading, refuses new
// requests with [CodeShuttingDown] and returns once the calls in flight
// are answered, cancelling those still running after
// [Options.DrainTimeout].
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	lw := &lineWriter{w: out}
	sess := newSession(s, lw)
	// One client: whoever is at the other end of the streams.
	sess.client = "stdio:" + sess.id
	return sess.serve(ctx, newLineReader(in, s.opts.MaxMessageBytes), lw)
}
