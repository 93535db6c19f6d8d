package lspclient

import (
	"context"
	"os"
	"time"
)

// LookupGoEnv returns the value of key in the environment of the go
// commands gopls runs, as gopls itself looks it up: its env setting (from
// Options.Settings, with the offline settings when the network is not
// allowed), else its own environment (goplsmcp's, then Options.Env). It
// is "" when key is set nowhere.
func (c *Client) LookupGoEnv(key string) string {
	if env, ok := c.settings()["env"].(map[string]any); ok {
		if v, ok := env[key].(string); ok {
			return v
		}
	}
	return lookupEnv(childEnv(os.Environ(), c.opts.Env, c.opts.AllowNetwork), key)
}

// Timeout returns the bound on each request (Options.Timeout).
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

type boundKey struct{}

// WithBound returns a context whose requests to gopls are each bounded by
// d instead of the client's timeout: for a request known to take long,
// such as a vulnerability scan, which a bound made for answers in
// milliseconds would cut off. A gopls that passes d is treated as one
// that passes the timeout.
func WithBound(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, boundKey{}, d)
}

// bound is the time a request made with ctx may take.
func (c *Client) bound(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(boundKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return c.opts.Timeout
}
