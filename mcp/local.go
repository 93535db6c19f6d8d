package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LocalOptions configure [Server.ServeLocal].
type LocalOptions struct {
	// Idle ends serving once no session has been connected for this long
	// (zero: never). The time counts from the start, so that a daemon
	// nobody connects to goes away too.
	Idle time.Duration
	// IdleUnused, if set, replaces Idle while no session has called a
	// tool: a server that only answered a client's health check
	// (initialize, tools/list) is not kept warm for long.
	IdleUnused time.Duration
	// OnSessions, if set, is called with the number of sessions connected
	// each time it changes.
	OnSessions func(n int)
	// Raw, if set, serves connections that are not MCP sessions: a
	// connection whose first line is "#" followed by one of its names
	// (and, after a space, an argument) is given, after that line, to
	// that handler, which owns it until it returns. Such a connection counts as a session for Idle and
	// OnSessions. What the bytes mean is the handler's business.
	Raw map[string]RawHandler
	// Configure, if set, says what each MCP session is served with (see
	// [SessionConfig]): a connection whose first line is RawHello("mcp",
	// arg) is an MCP session configured by Configure(arg), and one that
	// starts with its first message by Configure(""). A session it
	// returns an error for is closed, the error logged.
	Configure func(arg string) (*SessionConfig, error)
}

// MCPHello is the name of the first line that configures an MCP session
// (see [LocalOptions.Configure]).
const MCPHello = "mcp"

// maxHello bounds a connection's first line.
const maxHello = 16 << 10

// A RawHandler serves one connection of [LocalOptions.Raw]: r reads what
// follows the connection's first line, conn writes to it; arg is the
// first line's argument. It returns when the connection is done or ctx
// is.
type RawHandler func(ctx context.Context, conn net.Conn, r io.Reader, arg string) error

// RawHello is the first line a client sends to be served by the raw
// handler name with arg (see [LocalOptions.Raw]).
func RawHello(name, arg string) string { return "#" + name + " " + arg + "\n" }

// CheckLocalPeer returns an error unless the process at the other end of
// conn, a unix socket connection, runs as this process's user, as the
// kernel reports it (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS; on
// other systems no peer can be checked and every one is refused). A
// client of [Server.ServeLocal] calls it before it sends anything: a
// socket file may have been planted by someone else, and what a session
// sends (unsaved text) is the user's.
func CheckLocalPeer(conn net.Conn) error {
	return checkPeer(conn, os.Getuid())
}

// ServeLocal serves one session per connection accepted on ln, a listener
// on a local (unix) socket, each exactly as [Server.ServeStdio] serves
// its streams: its own lifecycle, log level, calls, cancellation and
// progress, and the end of its connection ends it. Only a peer running
// as the same user as this process is served; any other connection is
// closed at once. It returns when ctx is done and every session has
// drained (see [Options.DrainTimeout]), or nil after the idle period of
// opts, or when accepting fails.
func (s *Server) ServeLocal(ctx context.Context, ln net.Listener, opts *LocalOptions) error {
	if opts == nil {
		opts = &LocalOptions{}
	}
	uid := os.Getuid()
	var (
		mu     sync.Mutex
		n      int
		wg     sync.WaitGroup
		idle   *time.Timer
		idleCh = make(chan struct{}, 1)
	)
	idleFor := func() time.Duration {
		if opts.IdleUnused > 0 && s.toolCalls.Load() == 0 {
			return min(opts.IdleUnused, opts.Idle)
		}
		return opts.Idle
	}
	if opts.Idle > 0 {
		idle = time.AfterFunc(idleFor(), func() {
			select {
			case idleCh <- struct{}{}:
			default:
			}
		})
	}
	count := func(delta int) {
		mu.Lock()
		n += delta
		cur := n
		if idle != nil {
			if cur == 0 {
				idle.Reset(idleFor())
			} else {
				idle.Stop()
			}
		}
		if opts.OnSessions != nil {
			opts.OnSessions(cur)
		}
		mu.Unlock()
	}

	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	acceptErr := make(chan error, 1)
	acceptDone := make(chan struct{})
	go func() {
		defer close(acceptDone)
		for {
			conn, err := ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			if err := checkPeer(conn, uid); err != nil {
				s.log.Warn("refused a connection to the local socket", "error", err)
				conn.Close()
				continue
			}
			count(+1)
			wg.Go(func() {
				defer count(-1)
				defer conn.Close()
				// An MCP message starts with '{' (or blank space); a
				// raw connection says which handler it wants first.
				br := bufio.NewReaderSize(conn, 64*1024)
				var conf *SessionConfig
				if first, err := br.Peek(1); err == nil && first[0] == '#' && (opts.Raw != nil || opts.Configure != nil) {
					line, err := br.ReadSlice('\n')
					if err != nil || len(line) > maxHello {
						s.log.Warn("refused a local connection whose first line is too long or unended", "bytes", len(line))
						return
					}
					name, arg, _ := strings.Cut(strings.TrimSpace(string(line[1:])), " ")
					if name == MCPHello && opts.Configure != nil {
						if conf, err = opts.Configure(arg); err != nil {
							s.log.Warn("refused a local MCP session", "error", err)
							return
						}
					} else {
						h := opts.Raw[name]
						if h == nil {
							s.log.Warn("refused a local connection for an unknown handler", "hello", shorten(strings.TrimSpace(string(line)), 80))
							return
						}
						if err := h(serveCtx, conn, br, arg); err != nil {
							s.log.Debug("raw local connection ended", "error", err)
						}
						return
					}
				} else if opts.Configure != nil {
					var err error
					if conf, err = opts.Configure(""); err != nil {
						s.log.Warn("refused a local MCP session", "error", err)
						return
					}
				}
				lw := &lineWriter{w: conn}
				sess := newSession(s, lw)
				// Every peer is the server's own user (checked
				// above), and one client may come back on a new
				// connection.
				sess.client = "local:" + strconv.Itoa(uid)
				sess.conf = conf
				s.log.Debug("local session started", "session", sess.id)
				if err := sess.serve(serveCtx, newLineReader(br, s.opts.MaxMessageBytes), lw); err != nil {
					s.log.Debug("local session ended", "session", sess.id, "error", err)
				}
			})
		}
	}()

	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-idleCh:
			mu.Lock()
			busy := n > 0
			mu.Unlock()
			// A session may have come in just as the timer fired.
			if !busy {
				break loop
			}
		case err = <-acceptErr:
			break loop
		}
	}
	ln.Close()
	<-acceptDone
	if err != nil && errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("accepting on the local socket: %w", err)
	}
	// Sessions still connected drain, as stdio's would.
	stopServing()
	wg.Wait()
	if idle != nil {
		idle.Stop()
	}
	return err
}
