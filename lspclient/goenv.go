package lspclient

import (
	"context"
	"os"
	"slices"
	"time"
)

// GoEnv returns the value of key in the environment of the go commands
// gopls runs, as gopls itself looks it up: its env setting (from
// Options.Settings, with the offline settings when the network is not
// allowed), else its own environment (goplsmcp's, then Options.Env). It
// is "" when key is set nowhere.
func (c *Client) GoEnv(key string) string {
	if env, ok := c.settings()["env"].(map[string]any); ok {
		if v, ok := env[key].(string); ok {
			return v
		}
	}
	return lookupEnv(childEnv(os.Environ(), c.opts.Env, c.opts.AllowNetwork), key)
}

// GoEnviron returns the environment of the go commands gopls runs, for a
// go command run beside it to see the same module cache, workspace and
// flags: gopls's own environment, then its env setting.
func (c *Client) GoEnviron() []string {
	env := childEnv(os.Environ(), c.opts.Env, c.opts.AllowNetwork)
	if set, ok := c.settings()["env"].(map[string]any); ok {
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if v, ok := set[k].(string); ok {
				env = append(env, k+"="+v)
			}
		}
	}
	return env
}

// AllowsNetwork reports whether the go commands gopls runs may download
// (Options.AllowNetwork).
func (c *Client) AllowsNetwork() bool { return c.opts.AllowNetwork }

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
