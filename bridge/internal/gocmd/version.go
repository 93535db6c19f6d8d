package gocmd

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// goToolchain caches the local Go toolchain's version.
var goToolchain struct {
	once    sync.Once
	version string
}

// Version returns the version of the local Go toolchain, the one gopls
// runs when toolchain switching is off. It asks outside any module, so a
// go.mod asking for a newer Go cannot make it fail or download anything.
// It asks once for the process; log, which must not be nil, hears of a
// failure.
func Version(log *slog.Logger) string {
	goToolchain.once.Do(func() {
		// Not the call's context: the answer is kept for every later call.
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		defer cancel()
		out, err := Run(ctx, os.TempDir(), []string{"GOTOOLCHAIN=local", "GOFLAGS=", "GO111MODULE=off"}, "env", "GOVERSION")
		if err != nil {
			log.Warn("cannot learn the Go version", "error", err)
			return
		}
		goToolchain.version = strings.TrimSpace(string(out))
	})
	return goToolchain.version
}
