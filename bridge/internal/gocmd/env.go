package gocmd

import (
	"cmp"
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goplsmcp/goplsmcp/bridge/internal/place"
)

// Env holds what the go command that gopls runs says of itself: the Go
// installation's directories, for showing and reading paths outside the
// root, and its version. They are learnt from the go command on first
// use. Its fields are set before that; the zero Env runs the go command
// with goplsmcp's own environment and the local toolchain, and logs
// nothing.
type Env struct {
	// Extra is what gopls adds to the go command's environment (its env
	// setting, --env's) with the offline policy applied: a GOMODCACHE
	// there is the module cache gopls uses, and a GOTOOLCHAIN the
	// toolchain its go command runs.
	Extra []string
	// Log receives the failure to learn the directories; nil discards it.
	Log *slog.Logger
	// Timeout bounds the go command; zero means the package's Timeout.
	Timeout time.Duration

	once      sync.Once
	goroot    string
	modcache  string
	version   string
	toolchain string // a GOTOOLCHAIN naming a toolchain that is not here
}

// learn asks the go command, once, outside any module (a go.mod asking
// for a newer Go must not make it switch) and offline (a toolchain that
// GOTOOLCHAIN names is run only if it is on PATH or in the module cache,
// never downloaded). When the toolchain GOTOOLCHAIN names is not here,
// the local one answers instead, and MissingToolchain says so. Every
// caller waits for the first, which is bounded by the timeout: a go
// command that hangs costs the first calls that long, once.
func (e *Env) learn() {
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(e.Timeout, Timeout))
		defer cancel()
		env := append(append([]string{"GOTOOLCHAIN=local"}, e.Extra...), "GOFLAGS=", "GOPROXY=off")
		ask := func(env []string) ([]byte, error) {
			return Run(ctx, os.TempDir(), env, "env", "GOROOT", "GOMODCACHE", "GOVERSION")
		}
		out, err := ask(env)
		if toolchain := lookup(env, "GOTOOLCHAIN"); err != nil && toolchain != "local" && ctx.Err() == nil {
			if local, lerr := ask(append(env, "GOTOOLCHAIN=local")); lerr == nil {
				e.toolchain, out, err = toolchain, local, nil
			}
		}
		if err != nil {
			if e.Log != nil {
				e.Log.Warn("cannot learn GOROOT, GOMODCACHE and the Go version; paths there are shown absolute", "error", err)
			}
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 3 {
			e.goroot = place.RealOrClean(lines[0])
			e.modcache = place.RealOrClean(lines[1])
			e.version = lines[2]
		}
	})
}

// Dirs returns GOROOT and GOMODCACHE with their links resolved, or empty
// strings if the go command did not say.
func (e *Env) Dirs() (goroot, modcache string) {
	e.learn()
	return e.goroot, e.modcache
}

// GOROOT is the first of Dirs.
func (e *Env) GOROOT() string { r, _ := e.Dirs(); return r }

// GOMODCACHE is the second of Dirs.
func (e *Env) GOMODCACHE() string { _, m := e.Dirs(); return m }

// GoVersion returns the version of the Go toolchain the go command runs
// ("go1.27.3"): the one GOTOOLCHAIN names, else the local one (the go
// command on PATH); "" if it did not say.
func (e *Env) GoVersion() string {
	e.learn()
	return e.version
}

// MissingToolchain returns the GOTOOLCHAIN that names a toolchain the go
// command cannot run offline (on neither PATH nor in the module cache),
// or "" when there is none such.
func (e *Env) MissingToolchain() string {
	e.learn()
	return e.toolchain
}

// lookup returns the value of key in env (KEY=VALUE pairs), the last
// occurrence winning as for os/exec; "" when unset.
func lookup(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}
