package lspclient

import (
	"maps"
	"os"
	"slices"
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

// GoplsPath returns the gopls binary the client runs (Options.Gopls).
func (c *Client) GoplsPath() string { return c.opts.Gopls }

// GoCommandEnv returns the environment of the go commands gopls runs, for
// a command run beside gopls to see what gopls's go command sees: gopls's
// own environment (with the offline settings), then its env setting.
func (c *Client) GoCommandEnv() []string {
	env := childEnv(os.Environ(), c.opts.Env, c.opts.AllowNetwork)
	set, _ := c.settings()["env"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if v, ok := set[k].(string); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
