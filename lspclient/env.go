package lspclient

import (
	"maps"
	"slices"
	"strings"
)

// offlineEnv keeps the go command that gopls runs from reaching the
// network: no module proxy or VCS download, no toolchain download.
var offlineEnv = []string{"GOPROXY=off", "GOTOOLCHAIN=local"}

// childEnv is gopls's environment: base (goplsmcp's own), then extra (the
// --env pairs), then, unless the network is allowed, the offline settings,
// which win over both. GOFLAGS keeps its other flags and gains
// -mod=readonly, so that the go command never edits go.mod or go.sum;
// -mod=mod, which would, is dropped, and -mod=vendor, which is read-only
// too, is kept.
func childEnv(base, extra []string, allowNetwork bool) []string {
	env := append(slices.Clip(base), extra...)
	if allowNetwork {
		return env
	}
	env = append(env, offlineEnv...)
	return append(env, "GOFLAGS="+readonlyGoflags(lookupEnv(env, "GOFLAGS")))
}

// lookupEnv returns the value of key in env. As for os/exec, the last
// occurrence wins.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

func readonlyGoflags(goflags string) string {
	var out []string
	hasMod := false
	for _, f := range strings.Fields(goflags) {
		if f == "-mod=mod" || f == "--mod=mod" {
			continue
		}
		if strings.HasPrefix(f, "-mod=") || strings.HasPrefix(f, "--mod=") {
			hasMod = true
		}
		out = append(out, f)
	}
	if !hasMod {
		out = append(out, "-mod=readonly")
	}
	return strings.Join(out, " ")
}

// offlineSettings applies the offline policy to gopls settings, which can
// say more than the environment: gopls's env setting overrides the
// environment for the go commands it runs (and is what a shared daemon
// runs them with), and its buildFlags are passed to them. So the env
// setting always holds GOPROXY=off, GOTOOLCHAIN=local and a GOFLAGS with
// -mod=readonly (from the setting's GOFLAGS, else goflags, the
// environment's), and -mod=mod is dropped from buildFlags. It returns a
// copy; s is not changed.
func offlineSettings(given map[string]any, goflags string) map[string]any {
	s := make(map[string]any, len(given)+1)
	maps.Copy(s, given)
	env := map[string]any{}
	switch given := s["env"].(type) {
	case map[string]any:
		maps.Copy(env, given)
	case map[string]string:
		for k, v := range given {
			env[k] = v
		}
	}
	for _, kv := range offlineEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if given, ok := env["GOFLAGS"].(string); ok {
		goflags = given
	}
	env["GOFLAGS"] = readonlyGoflags(goflags)
	s["env"] = env

	flags, ok := s["buildFlags"].([]any)
	if strs, isStrings := s["buildFlags"].([]string); isStrings {
		flags, ok = make([]any, len(strs)), true
		for i, f := range strs {
			flags[i] = f
		}
	}
	if ok {
		kept := []any{}
		for i := 0; i < len(flags); i++ {
			f, _ := flags[i].(string)
			switch {
			case f == "-mod=mod" || f == "--mod=mod":
				continue
			case (f == "-mod" || f == "--mod") && i+1 < len(flags) && flags[i+1] == "mod":
				i++
				continue
			}
			kept = append(kept, flags[i])
		}
		s["buildFlags"] = kept
	}
	return s
}

// FixedSettings are the gopls settings goplsmcp relies on; settings given
// to a client must leave them alone.
func FixedSettings() []string {
	return slices.Sorted(maps.Keys(defaultSettings()))
}

// GoEnv returns the variables gopls gives the go command it runs beyond
// its own environment (the env setting, --env's), as KEY=VALUE, sorted, so
// that a go command goplsmcp runs sees what gopls's does (GOMODCACHE,
// GOFLAGS, GOOS, ...).
func (c *Client) GoEnv() []string {
	var env []string
	switch given := c.opts.Settings["env"].(type) {
	case map[string]any:
		for k, v := range given {
			if s, ok := v.(string); ok {
				env = append(env, k+"="+s)
			}
		}
	case map[string]string:
		for k, v := range given {
			env = append(env, k+"="+v)
		}
	}
	slices.Sort(env)
	return env
}

// BuildFlags returns the build flags gopls runs the go command with (the
// buildFlags setting, --build-flags's).
func (c *Client) BuildFlags() []string {
	var flags []string
	switch given := c.opts.Settings["buildFlags"].(type) {
	case []any:
		for _, f := range given {
			if s, ok := f.(string); ok {
				flags = append(flags, s)
			}
		}
	case []string:
		flags = append(flags, given...)
	}
	return flags
}
