package lspclient

import (
	"bufio"
	"bytes"
	"go/version"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// offlineEnv keeps the go command that gopls runs from reaching the
// network: no module proxy or VCS download, and so no toolchain download
// (toolchains come through the module proxy), for a user whose
// GOTOOLCHAIN is toolchain (see offlineToolchain).
func offlineEnv(toolchain string) []string {
	return []string{"GOPROXY=off", "GOTOOLCHAIN=" + offlineToolchain(toolchain)}
}

// offlineToolchain is the GOTOOLCHAIN the go command gopls runs has
// offline, given the user's. A toolchain the user names (go1.27.3,
// go1.27.3+auto) is kept: with GOPROXY=off the go command runs it from
// PATH or the module cache, where an earlier download left it, and fails
// naming it when it is in neither — it never downloads it. Anything else
// (auto, path, local, unset) is local: the Go on PATH, whatever go.mod
// asks for, which refuses a module that needs a newer Go in words an
// agent can act on.
func offlineToolchain(user string) string {
	name, _, _ := strings.Cut(user, "+")
	if strings.HasPrefix(name, "go") && version.IsValid(name) {
		return user
	}
	return "local"
}

// childEnv is gopls's environment: base (goplsmcp's own), then extra (the
// --env pairs), then, unless the network is allowed, the offline settings,
// which win over both. GOFLAGS (the environment's, else the go env
// file's) loses -mod=mod, which would let the go command edit go.mod and
// go.sum, and gains no -mod flag: the go command's own default is
// already read-only, and is -mod=vendor where a consistent vendor/ is
// present, which an added -mod=readonly would override. A user's
// -mod=vendor or -mod=readonly is kept.
func childEnv(base, extra []string, allowNetwork bool) []string {
	env := append(slices.Clip(base), extra...)
	if allowNetwork {
		return env
	}
	env = append(env, offlineEnv(goVar(env, "GOTOOLCHAIN"))...)
	if goflags, ok := offlineGoflags(userGoflags(env)); ok {
		env = append(env, "GOFLAGS="+goflags)
	}
	return env
}

// userGoflags returns the GOFLAGS the go command would run with in env.
func userGoflags(env []string) string { return goVar(env, "GOFLAGS") }

// goVar returns the value of key the go command would see in env: env's
// own, else the one `go env -w` wrote to the go env file.
func goVar(env []string, key string) string {
	if v := lookupEnv(env, key); v != "" {
		return v
	}
	return goEnvFileValue(env, key)
}

// givenEnv is the environment goplsmcp was given for the go command:
// its own, --env's, and the env setting's, the last winning.
func (c *Client) givenEnv() []string {
	return append(append(os.Environ(), c.opts.Env...), c.GoEnv()...)
}

// goEnvFileValue reads key from the go env file (GOENV, else
// os.UserConfigDir()/go/env), as the go command does when the
// environment does not set key; "" when there is none.
func goEnvFileValue(env []string, key string) string {
	file := lookupEnv(env, "GOENV")
	if file == "off" {
		return ""
	}
	if file == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		file = filepath.Join(dir, "go", "env")
	}
	data, err := ReadRegular(file, 1<<20)
	if err != nil {
		return ""
	}
	value := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), key+"="); ok {
			value = v // the last one wins, as in the go command
		}
	}
	return value
}

// LookupEnv returns the value of key in env (KEY=VALUE pairs). As for
// os/exec, the last occurrence wins.
func LookupEnv(env []string, key string) string { return lookupEnv(env, key) }

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// offlineGoflags returns goflags without -mod=mod, and whether GOFLAGS
// must be set to it. An empty GOFLAGS would let the go command read the
// go env file's, so when dropping -mod=mod leaves nothing the result is a
// blank " ": set, and without a flag.
func offlineGoflags(goflags string) (string, bool) {
	if goflags == "" {
		return "", false
	}
	var out []string
	for _, f := range strings.Fields(goflags) {
		if f == "-mod=mod" || f == "--mod=mod" {
			continue
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return " ", true
	}
	return strings.Join(out, " "), true
}

// offlineSettings applies the offline policy to gopls settings, which can
// say more than the environment: gopls's env setting overrides the
// environment for the go commands it runs (and is what a shared daemon
// runs them with), and its buildFlags are passed to them. So the env
// setting always holds GOPROXY=off and, when there is one, a GOFLAGS
// without -mod=mod (from the setting's GOFLAGS, else goflags, the
// environment's; no -mod flag is added, see childEnv), and -mod=mod is
// dropped from buildFlags. A GOTOOLCHAIN it names becomes the offline
// one (see offlineToolchain); without one, the environment's rules, as
// childEnv made it (and as a forwarder passes it to a shared daemon with
// its go env). It returns a copy; s is not changed.
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
	env["GOPROXY"] = "off"
	if given, ok := env["GOTOOLCHAIN"].(string); ok {
		env["GOTOOLCHAIN"] = offlineToolchain(given)
	}
	if given, ok := env["GOFLAGS"].(string); ok {
		goflags = given
	}
	if goflags, ok := offlineGoflags(goflags); ok {
		env["GOFLAGS"] = goflags
	} else {
		delete(env, "GOFLAGS")
	}
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

// OfflineGoEnv returns [Client.GoEnv] with the offline policy applied
// whatever --allow-network says: for a go command goplsmcp runs itself
// beside gopls, which looks but never downloads, in the module mode
// gopls's go command has (vendor/ where it is consistent).
func (c *Client) OfflineGoEnv() []string {
	env := append(c.GoEnv(), offlineEnv(c.GoVar("GOTOOLCHAIN"))...)
	if goflags, ok := offlineGoflags(userGoflags(c.givenEnv())); ok {
		env = append(env, "GOFLAGS="+goflags)
	}
	return env
}

// GoVar returns the value of key as the go command gopls runs sees it:
// its environment's (goplsmcp's own, --env's, the env setting's), else
// the go env file's; "" when unset.
func (c *Client) GoVar(key string) string {
	return goVar(c.givenEnv(), key)
}
