package lspclient

import (
	"context"
	stdjson "encoding/json"
	"strconv"
	"sync"
)

// A question asked twice is worked on once. A request identical to one
// in flight — same method, same parameters, and no change told to gopls
// since that one was sent (the modification generation) — waits for the
// answer already under way instead of asking again: a client that asks
// again because the first answer is slow, or two sessions of one daemon
// asking the same thing, cost gopls one piece of work. The request is
// made on behalf of all who wait for it and cancelled ($/cancelRequest)
// only when every one of them has gone.

// flights are the requests in flight that others may join, by key.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
	wg sync.WaitGroup // the requests made on behalf of all
}

// A flight is one request and those who wait for its answer.
type flight struct {
	done    chan struct{}
	raw     stdjson.RawMessage
	err     error
	waiters int
	cancel  context.CancelFunc
}

// joined is c.call, joining an identical request in flight if there is
// one. gen is the modification generation the request belongs to.
func (c *Client) joined(ctx context.Context, gen uint64, method string, params, result any) error {
	if isEditor(ctx) {
		// An editor asks each thing once and cancels what it no longer
		// needs; joining would cost each of its requests a goroutine
		// and a copy of its parameters on the path it waits on.
		return c.call(ctx, method, params, result)
	}
	data, err := stdjson.Marshal(params)
	if err != nil {
		return c.call(ctx, method, params, result)
	}
	key := method + "\x00" + string(data) + "\x00" + strconv.FormatUint(gen, 10)
	fs := &c.flights
	fs.mu.Lock()
	if fs.m == nil {
		fs.m = map[string]*flight{}
	}
	f := fs.m[key]
	if f == nil {
		// Made apart from any one caller's context (its values kept),
		// so that the caller who came first may leave the others theirs.
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel}
		fs.m[key] = f
		fs.wg.Go(func() {
			var raw stdjson.RawMessage
			err := c.call(fctx, method, params, &raw)
			fs.mu.Lock()
			if fs.m[key] == f {
				delete(fs.m, key)
			}
			f.raw, f.err = raw, err
			fs.mu.Unlock()
			close(f.done)
			cancel()
		})
	}
	f.waiters++
	fs.mu.Unlock()

	select {
	case <-f.done:
		if f.err != nil {
			return f.err
		}
		return decodeResult(f.raw, result)
	case <-ctx.Done():
		fs.mu.Lock()
		f.waiters--
		last := f.waiters == 0
		if last && fs.m[key] == f {
			// Nobody may join a request about to be cancelled.
			delete(fs.m, key)
		}
		fs.mu.Unlock()
		if last {
			f.cancel()
		}
		return ctx.Err()
	}
}
