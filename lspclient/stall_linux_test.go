package lspclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// manyPackages writes a module of n packages that all use a.Target, so
// that the first search for its references type-checks all of them.
func manyPackages(t *testing.T, n int) (root string) {
	t.Helper()
	root = t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/many\n\ngo 1.22\n")
	write("a/a.go", "package a\n\n// Target is used by every package.\nfunc Target(n int) int { return n + 1 }\n")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\nimport \"example.com/many/a\"\n\n", i)
		for j := range 20 {
			fmt.Fprintf(&b, "type T%d struct{ v, w int; s []string; m map[string]T%d }\n\n", j, j)
			fmt.Fprintf(&b, "func (t *T%d) F%d(x int) int {\n\tfor k := range x {\n\t\tt.v += a.Target(k) * t.w\n\t}\n\treturn t.v\n}\n\n", j, j)
		}
		write(fmt.Sprintf("p%d/p.go", i), b.String())
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// starve runs gopls's process group a fraction of the time, stopping and
// continuing it, as a machine with many more busy processes than cores
// would, until the returned function is called.
func starve(t *testing.T, pid int, run, stop time.Duration) (end func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			_ = syscall.Kill(-pid, syscall.SIGSTOP)
			select {
			case <-done:
				_ = syscall.Kill(-pid, syscall.SIGCONT)
				return
			case <-time.After(stop):
			}
			_ = syscall.Kill(-pid, syscall.SIGCONT)
			select {
			case <-done:
				return
			case <-time.After(run):
			}
		}
	})
	var once sync.Once
	end = func() { once.Do(func() { close(done); wg.Wait() }) }
	t.Cleanup(end)
	return end
}

// TestSlowIsNotStuck asks gopls a question that takes many stall windows
// to answer, with gopls given a fifth of the time (as on a machine with
// a CPU hog on every core): it must be answered, not failed, and gopls
// must not be restarted.
func TestSlowIsNotStuck(t *testing.T) {
	root := manyPackages(t, 200)
	// A window of seconds, as the 30 s default is many: gopls's share of a
	// loaded machine, a fifth of the time, must show in it.
	const window = 2 * time.Second
	c := startWith(t, Options{Root: root, Timeout: window})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitFor(t, 2*time.Minute, "the workspace to load", c.Loaded)

	pid := c.PID()
	end := starve(t, pid, 10*time.Millisecond, 40*time.Millisecond)
	refs, took, err := referencesOfTarget(ctx, c, root)
	end()
	if err != nil {
		t.Fatalf("references from a starved gopls after %s: %v", took.Round(time.Millisecond), err)
	}
	if want := 200 * 20; len(refs) != want {
		t.Errorf("references: %d, want %d", len(refs), want)
	}
	if h := c.Health(); h.Restarts != 0 || h.PID != pid {
		t.Errorf("Health = %+v: a starved gopls was restarted", h)
	}
	if took < 2*window {
		t.Skipf("the answer took %s, less than two stall windows (%s): nothing was shown", took.Round(time.Millisecond), 2*window)
	}
	t.Logf("answered after %s, %.0f stall windows", took.Round(time.Millisecond), float64(took)/float64(window))
}

// TestCPUHogIsNotStuck asks gopls the same long question while a CPU
// hog keeps every core busy (twice as many spinning threads as cores, in
// this process): gopls gets its share of the machine, slower, and must be
// answered, not failed nor restarted.
func TestCPUHogIsNotStuck(t *testing.T) {
	root := manyPackages(t, 400)
	const window = 2 * time.Second
	c := startWith(t, Options{Root: root, Timeout: window})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitFor(t, 2*time.Minute, "the workspace to load", c.Loaded)

	pid := c.PID()
	stop := make(chan struct{})
	var hog sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		hog.Go(func() {
			for n := 0; ; n++ {
				if n%(1<<16) == 0 {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
		})
	}
	endHog := sync.OnceFunc(func() { close(stop); hog.Wait() })
	t.Cleanup(endHog)
	refs, took, err := referencesOfTarget(ctx, c, root)
	endHog()
	if err != nil {
		t.Fatalf("references from gopls beside a CPU hog after %s: %v", took.Round(time.Millisecond), err)
	}
	if want := 400 * 20; len(refs) != want {
		t.Errorf("references: %d, want %d", len(refs), want)
	}
	if h := c.Health(); h.Restarts != 0 || h.PID != pid {
		t.Errorf("Health = %+v: gopls beside a CPU hog was restarted", h)
	}
	if took < window {
		t.Skipf("the answer took %s, less than a stall window (%s): nothing was shown", took.Round(time.Millisecond), window)
	}
	t.Logf("answered after %s, %.1f stall windows", took.Round(time.Millisecond), float64(took)/float64(window))
}

// referencesOfTarget asks gopls, workspace-wide, for the references of the
// fixture's a.Target, and says how long it took.
func referencesOfTarget(ctx context.Context, c *Client, root string) ([]refLocation, time.Duration, error) {
	start := time.Now()
	var refs []refLocation
	err := c.Call(WorkspaceWide(ctx), "textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": FileURI(filepath.Join(root, "a", "a.go"))},
		"position":     map[string]any{"line": 3, "character": 6},
		"context":      map[string]any{"includeDeclaration": false},
	}, &refs)
	return refs, time.Since(start), err
}

type refLocation struct {
	URI string `json:"uri"`
}

// TestStalledRequestFails: a request gopls stops working on while it
// still answers — waiting forever on a go list that reads nothing, as a
// package holding a link to a FIFO can make it — fails after a stall
// window with a *StuckError that names the file, and gopls is kept.
func TestStalledRequestFails(t *testing.T) {
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root := exampleRoot(t)
	bin := t.TempDir()
	gate := filepath.Join(bin, "gate")
	// go list blocks, using no CPU, once the gate exists.
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = list ] && [ -e %q ]; then exec sleep 600; fi\nexec %q \"$@\"\n", gate, realGo)
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const window = time.Second
	c := startWith(t, Options{Root: root, Timeout: window, Env: []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	waitFor(t, time.Minute, "the workspace to load", c.Loaded)
	pid := c.PID()

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "fresh", "fresh.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package fresh\n\nfunc Fresh() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var hover hoverAnswer
	err = c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": FileURI(file)},
		"position":     map[string]any{"line": 2, "character": 6},
	}, &hover)
	took := time.Since(start)
	var stuck *StuckError
	if !errors.As(err, &stuck) {
		t.Fatalf("hover in a package whose go list never ends = %v after %s, want a *StuckError", err, took)
	}
	if stuck.Restarted || stuck.File != file || !errors.Is(err, ErrTimeout) {
		t.Errorf("StuckError = %+v, want gopls kept and the file named %s", stuck, file)
	}
	if bound := window + 2*window/stallSteps + probeDeadline(window) + 2*time.Second; took > bound {
		t.Errorf("the stalled hover ended after %s, want within %s", took, bound)
	}
	if h := c.Health(); h.Restarts != 0 || h.PID != pid {
		t.Errorf("Health = %+v: a gopls that still answers was restarted", h)
	}
	t.Logf("failed after %s: %v", took.Round(time.Millisecond), err)
}

type hoverAnswer struct {
	Contents struct {
		Value string `json:"value"`
	} `json:"contents"`
}
