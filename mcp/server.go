package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// Protocol versions this server speaks, newest first. A client asking for
// any other version is answered with the newest.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const latestVersion = "2025-11-25"

// Defaults for [Options] fields left zero.
const (
	DefaultMaxMessageBytes = 2 << 20
	DefaultMaxResultBytes  = 512 << 10
	DefaultMaxInFlight     = 8
)

// Options configure a [Server]. A nil *Options means all defaults.
type Options struct {
	// Title is the human-readable server name sent in serverInfo.
	Title string
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
	// (default 8).
	MaxInFlight int
}

// A Server is a registry of tools plus the options every session shares. It
// is safe for concurrent use; register tools before serving.
type Server struct {
	name    string
	version string
	opts    Options
	log     *slog.Logger

	mu    sync.RWMutex
	tools []*serverTool
	index map[string]*serverTool
}

// NewServer returns a server that introduces itself as name at version.
func NewServer(name, version string, opts *Options) *Server {
	s := &Server{name: name, version: version, index: make(map[string]*serverTool)}
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

func (s *Server) toolList() []*serverTool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*serverTool(nil), s.tools...)
}

// ServeStdio runs one session over a pair of streams, one JSON-RPC message
// per line, until in reaches its end or ctx is cancelled. At the end of
// input, calls already received are answered before it returns; when ctx
// is cancelled they are cancelled instead.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := newSession(s, &lineWriter{w: out}, "stdio")
	return sess.serve(ctx, newLineReader(in, s.opts.MaxMessageBytes))
}
