package gocmd

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGoCommandTimeout gives Env and Run a go command that never finishes:
// learning GOROOT gives up at the timeout, says so in the log, and leaves
// paths there to be shown as they are; a go command run for a call fails
// with a message that says it did not finish.
func TestGoCommandTimeout(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte("#!/bin/sh\nexec "+sleep+" 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	var log lockedBuffer
	e := &Env{Log: slog.New(slog.NewTextHandler(&log, nil)), Timeout: 200 * time.Millisecond}
	if goroot, modcache := e.Dirs(); goroot != "" || modcache != "" {
		t.Errorf("GOROOT %q, GOMODCACHE %q from a go command that never answered", goroot, modcache)
	}
	if got := log.String(); !strings.Contains(got, "cannot learn GOROOT") || !strings.Contains(got, "go env GOROOT GOMODCACHE GOVERSION did not finish within") {
		t.Errorf("log = %q; want it to say go env did not finish in time", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = Run(ctx, dir, nil, "list", "-find", "example.com/x")
	if err == nil || !strings.Contains(err.Error(), "go list -find example.com/x did not finish within") {
		t.Errorf("Run = %v; want it to say the command did not finish in time", err)
	}
}

// lockedBuffer is a strings.Builder safe for a logger's use.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
