package mcp

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// DefaultMaxConns bounds the HTTP connections open at once when
// [HTTPOptions.MaxConns] is zero: well under a 256-descriptor limit, with
// room for gopls's pipes, the watcher and the files read.
const DefaultMaxConns = 128

// A connLimiter is a listener that keeps at most max connections open.
// At the cap a new connection is not refused: the oldest connection that
// has not yet carried a request with the token is closed to make room, so
// that connections held open by clients without the token (never
// finishing their headers or body, or idling after a probe) can never
// lock out one that has it. Only when every open connection has carried
// the token is the new one closed.
type connLimiter struct {
	net.Listener
	max int

	mu    sync.Mutex
	seq   uint64
	conns map[*limitedConn]struct{}
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, conns: map[*limitedConn]struct{}{}}
}

// A limitedConn is a connection counted by its limiter.
type limitedConn struct {
	net.Conn
	l       *connLimiter
	seq     uint64
	trusted atomic.Bool // a request on it carried the token
}

// Accept implements [net.Listener].
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if len(l.conns) >= l.max {
			var victim *limitedConn
			for lc := range l.conns {
				if !lc.trusted.Load() && (victim == nil || lc.seq < victim.seq) {
					victim = lc
				}
			}
			if victim == nil {
				l.mu.Unlock()
				c.Close()
				continue
			}
			delete(l.conns, victim)
			// The server's goroutine on it sees its read fail and
			// ends.
			victim.Conn.Close()
		}
		l.seq++
		lc := &limitedConn{Conn: c, l: l, seq: l.seq}
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
		return lc, nil
	}
}

// Close implements [net.Conn].
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// connKey is the context key of the connection a request came on.
type connKey struct{}

// withConn is an [http.Server] ConnContext: it remembers the connection,
// for trust to be marked on it.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// trust marks the connection of a request that carried the token.
func trust(ctx context.Context) {
	if lc, ok := ctx.Value(connKey{}).(*limitedConn); ok {
		lc.trusted.Store(true)
	}
}
