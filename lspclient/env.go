package lspclient

import (
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
