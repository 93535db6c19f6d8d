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

// Env holds the Go installation's directories, for showing and reading
// paths outside the root. They are learnt from the go command on first
// use. Its fields are set before that; the zero Env runs the go command
// with goplsmcp's own environment and logs nothing.
type Env struct {
	// Extra is what gopls adds to the go command's environment (--env):
	// a GOMODCACHE there is the module cache gopls uses.
	Extra []string
	// Log receives the failure to learn the directories; nil discards it.
	Log *slog.Logger
	// Timeout bounds the go command; zero means the package's Timeout.
	Timeout time.Duration

	once     sync.Once
	goroot   string
	modcache string
}

// Dirs returns GOROOT and GOMODCACHE with their links resolved, or empty
// strings if the go command did not say. Every caller waits for the
// first, which is bounded by the timeout: a go command that hangs costs
// the first calls that long, once, and paths in those directories are
// then shown absolute.
func (e *Env) Dirs() (goroot, modcache string) {
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(e.Timeout, Timeout))
		defer cancel()
		// Outside any module and with the local toolchain, like gopls's:
		// a go.mod asking for a newer Go must not make it download one.
		out, err := Run(ctx, os.TempDir(), append(slices.Clip(e.Extra), "GOTOOLCHAIN=local", "GOFLAGS="), "env", "GOROOT", "GOMODCACHE")
		if err != nil {
			if e.Log != nil {
				e.Log.Warn("cannot learn GOROOT and GOMODCACHE; paths there are shown absolute", "error", err)
			}
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			e.goroot = place.RealOrClean(lines[0])
			e.modcache = place.RealOrClean(lines[1])
		}
	})
	return e.goroot, e.modcache
}

// GOROOT is the first of Dirs.
func (e *Env) GOROOT() string { r, _ := e.Dirs(); return r }

// GOMODCACHE is the second of Dirs.
func (e *Env) GOMODCACHE() string { _, m := e.Dirs(); return m }
