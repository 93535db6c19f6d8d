package lspclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBlockedGoplsReplaced has gopls told of a FIFO saved into package a
// after the load, as an editor's own file watcher tells it through
// goplsmcp: gopls then blocks in open(2) on it, while it still answers
// probes. It must be judged blocked and replaced with the file hidden,
// the calls, about either package, must answer, and the log must name
// the file; once the file is gone, calls still answer.
func TestBlockedGoplsReplaced(t *testing.T) {
	root := twoPackages(t)
	c := startWith(t, Options{Root: root, Timeout: 5 * time.Second, LoadTimeout: shieldBound})
	waitFor(t, shieldBound, "the workspace to load", c.Loaded)
	checkHovers(t, c, root, "before")
	pid := c.PID()

	fifo := filepath.Join(root, "a", "x.go")
	makeSpecial(t, fifo, "fifo")
	ctx, cancel := context.WithTimeout(context.Background(), shieldBound)
	defer cancel()
	if err := c.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []map[string]any{{"uri": FileURI(fifo), "type": fileCreated}},
	}); err != nil {
		t.Fatal(err)
	}
	checkHovers(t, c, root, "with the FIFO")
	h := c.Health()
	if h.PID == pid || !strings.Contains(h.LastExit, fifo) {
		t.Errorf("Health = %+v: want gopls replaced, its end naming %s", h, fifo)
	}
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	checkHovers(t, c, root, "after the FIFO is gone")
}

// endlessPreamble is a cgo package whose preamble never finishes
// compiling: X60 expands to 2^60 terms.
func endlessPreamble() string {
	var b strings.Builder
	b.WriteString("package cg\n\n/*\n#define X0 1\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "#define X%d X%d+X%d\n", i, i-1, i-1)
	}
	b.WriteString("static int x(void) { return X60; }\n*/\nimport \"C\"\n\n// Hang never compiles.\nfunc Hang() int { return int(C.x()) }\n")
	return b.String()
}

// requireCC skips the test unless the go command can run a C compiler.
func requireCC(t *testing.T) {
	t.Helper()
	out, err := exec.Command("go", "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "1" {
		t.Skipf("cgo is off here (go env CGO_ENABLED: %q): no C compiler to run", f)
	}
	if _, err := exec.LookPath(f[1]); err != nil {
		t.Skipf("no C compiler here (go env CC is %q: %v)", f[1], err)
	}
}

// TestEndlessCompileKilled saves, after the load, a cgo package whose
// preamble never finishes compiling, and asks about it: the C compiler
// gopls's go command runs must be killed past its bound, the call must
// answer one sentence naming the package and the cause, calls about
// other packages must answer meanwhile, and no process of gopls's group
// may outlive the client.
func TestEndlessCompileKilled(t *testing.T) {
	requireCC(t)
	root := twoPackages(t)
	const window = 3 * time.Second
	c := startWith(t, Options{Root: root, Timeout: window, LoadTimeout: shieldBound})
	waitFor(t, shieldBound, "the workspace to load", c.Loaded)
	checkHovers(t, c, root, "before")
	pgid := c.PID()

	writeTree(t, root, map[string]string{"cg/cg.go": endlessPreamble()})
	type answer struct {
		text string
		err  error
		took time.Duration
	}
	cgDone := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), shieldBound)
		defer cancel()
		began := time.Now()
		text, err := hoverAt(ctx, c, root, "cg/cg.go", 69, 6)
		cgDone <- answer{text, err, time.Since(began)}
	}()
	waitFor(t, shieldBound, "a C compiler in gopls's group", func() bool {
		for _, pid := range groupPIDs(pgid) {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.HasPrefix(string(comm), "cc1") {
				return true
			}
		}
		return false
	})
	began := time.Now()
	checkHovers(t, c, root, "while the C compiler runs")
	t.Logf("calls about other packages answered within %s while the C compiler ran", time.Since(began).Round(time.Millisecond))

	var a answer
	select {
	case a = <-cgDone:
	case <-time.After(shieldBound + time.Minute):
		t.Fatal("the call about package cg never answered")
	}
	var ce *ChildError
	if !errors.As(a.err, &ce) || !strings.Contains(a.err.Error(), "example.com/m/cg") || !strings.Contains(a.err.Error(), "cc1") {
		t.Errorf("hover in cg/cg.go after %s: want a *ChildError naming example.com/m/cg and cc1, got %q, %v", a.took.Round(time.Millisecond), a.text, a.err)
	} else {
		t.Logf("answered after %s: %v", a.took.Round(time.Millisecond), a.err)
	}
	checkHovers(t, c, root, "after the C compiler was killed")
	c.Close()
	waitFor(t, 10*time.Second, "gopls's group to end with the client", func() bool { return len(groupPIDs(pgid)) == 0 })
}

// TestBlockedGoListKilled saves a FIFO into vendor/ after the load — a
// folder the watcher skips, read by the go command in vendor mode — and
// then makes main.go import the package: the go command gopls runs
// blocks in open(2) on the FIFO. It must be killed and the FIFO hidden:
// the call answers, at worst with a sentence naming the FIFO, and the
// next calls answer.
func TestBlockedGoListKilled(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"go.mod":                       "module example.com/m\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n",
		"main.go":                      "package main\n\nfunc main() {}\n",
		"vendor/modules.txt":           "# example.com/dep v1.0.0\n## explicit; go 1.22\nexample.com/dep\n",
		"vendor/example.com/dep/ok.go": depOK,
	})
	c := startWith(t, Options{Root: root, Timeout: 5 * time.Second, LoadTimeout: shieldBound})
	waitFor(t, shieldBound, "the workspace to load", c.Loaded)
	fifo := filepath.Join(root, "vendor", "example.com", "dep", "dep.go")
	makeSpecial(t, fifo, "fifo")
	writeTree(t, root, map[string]string{"main.go": fmt.Sprintf(mainUsesDep, "example.com/dep")})

	ctx, cancel := context.WithTimeout(context.Background(), shieldBound)
	defer cancel()
	began := time.Now()
	text, err := hoverOK(ctx, c, root)
	if err != nil && !strings.Contains(err.Error(), fifo) {
		t.Errorf("hover on dep.OK with a FIFO in vendor/ after %s: want an answer or an error naming %s, got %q, %v",
			time.Since(began).Round(time.Millisecond), fifo, text, err)
	}
	t.Logf("first call after %s: %q, %v", time.Since(began).Round(time.Millisecond), text, err)
	for range 2 {
		began := time.Now()
		if text, err := hoverOK(ctx, c, root); err != nil || !strings.Contains(text, "OK() int") {
			t.Errorf("hover on dep.OK after %s: want OK() int, got %q, %v", time.Since(began).Round(time.Millisecond), text, err)
		}
	}
}
