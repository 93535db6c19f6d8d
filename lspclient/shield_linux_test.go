package lspclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// shieldBound is how long a load or a call may take with a special file
// in the workspace: generous for a loaded machine, since a hang is what
// is tested against.
const shieldBound = 90 * time.Second

// floodBound is the most memory any process of gopls's group may use
// while it works on a workspace holding a link to /dev/urandom: a go
// command that reads it grows past it within seconds, and is killed then
// by the test (see watchGroupMemory).
const floodBound = 200 << 20

// writeTree writes files (relative path: content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// makeSpecial makes path a Go file that is not a regular file: a link to
// /dev/urandom, or a FIFO no one writes.
func makeSpecial(t *testing.T, path, kind string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch kind {
	case "urandom":
		err = os.Symlink("/dev/urandom", path)
	case "fifo":
		err = mkfifo(path, 0o644)
	default:
		t.Fatalf("no special file of kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// shieldCase is a workspace whose main package imports a package in a
// folder the watcher skips, and where in it the special file goes.
type shieldCase struct {
	name string
	// files of the root; other, if any, of a directory beside it (../other).
	files, other map[string]string
	// special is the special file's path, relative to the root.
	special string
}

const mainUsesDep = "package main\n\nimport dep \"%s\"\n\nfunc main() { _ = dep.OK() }\n"

const depOK = "package dep\n\n// OK is a regular declaration beside the special file.\nfunc OK() int { return 1 }\n"

func shieldCases() []shieldCase {
	return []shieldCase{
		{
			name: "vendor",
			files: map[string]string{
				"go.mod":                       "module example.com/m\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n",
				"main.go":                      fmt.Sprintf(mainUsesDep, "example.com/dep"),
				"vendor/modules.txt":           "# example.com/dep v1.0.0\n## explicit; go 1.22\nexample.com/dep\n",
				"vendor/example.com/dep/ok.go": depOK,
			},
			special: "vendor/example.com/dep/dep.go",
		},
		{
			name: "testdata",
			files: map[string]string{
				"go.mod":             "module example.com/m\n\ngo 1.22\n",
				"main.go":            fmt.Sprintf(mainUsesDep, "example.com/m/testdata/dep"),
				"testdata/dep/ok.go": depOK,
			},
			special: "testdata/dep/dep.go",
		},
		{
			name: "underscore",
			files: map[string]string{
				"go.mod":     "module example.com/m\n\ngo 1.22\n",
				"main.go":    fmt.Sprintf(mainUsesDep, "example.com/m/_dep"),
				"_dep/ok.go": depOK,
			},
			special: "_dep/dep.go",
		},
		{
			name: "go.work",
			files: map[string]string{
				"go.work": "go 1.22\n\nuse (\n\t.\n\t../other\n)\n",
				"go.mod":  "module example.com/m\n\ngo 1.22\n",
				"main.go": fmt.Sprintf(mainUsesDep, "example.com/other"),
			},
			other: map[string]string{
				"go.mod": "module example.com/other\n\ngo 1.22\n",
				"ok.go":  depOK,
			},
			special: "../other/dep.go",
		},
	}
}

// shieldWorkspace writes tc's workspace with a special file of kind and
// returns its root.
func shieldWorkspace(t *testing.T, tc shieldCase, kind string) (root string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(dir, "root")
	writeTree(t, root, tc.files)
	if tc.other != nil {
		writeTree(t, filepath.Join(dir, "other"), tc.other)
	}
	makeSpecial(t, filepath.Join(root, tc.special), kind)
	return root
}

// hoverOK asks for hover on OK in main.go and returns its text.
func hoverOK(ctx context.Context, c *Client, root string) (string, error) {
	var h struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	err := c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": FileURI(filepath.Join(root, "main.go"))},
		"position":     map[string]any{"line": 4, "character": 23},
	}, &h)
	return h.Contents.Value, err
}

// groupProcs returns the pids of the processes in process group pgid.
func groupPIDs(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// watchGroupMemory samples the resident memory of every process in the
// process group of the client's gopls until the test ends, killing any
// that grows past floodBound (a go command reading /dev/urandom would
// fill the machine). It returns the largest seen of gopls's children,
// and the command lines of those killed.
func watchGroupMemory(t *testing.T, c *Client) (peak func() (int64, []string)) {
	t.Helper()
	var (
		max     atomic.Int64
		mu      sync.Mutex
		killed  []string
		peakCmd string
		done    = make(chan struct{})
		wg      sync.WaitGroup
	)
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			for _, pid := range groupPIDs(c.PID()) {
				rss, ok := residentBytes(pid)
				if !ok {
					continue
				}
				if rss > max.Load() && pid != c.PID() {
					max.Store(rss)
					cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
					mu.Lock()
					peakCmd = fmt.Sprintf("%.80s", strings.ReplaceAll(string(cmdline), "\x00", " "))
					mu.Unlock()
				}
				if rss > floodBound {
					cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
					_ = syscall.Kill(pid, syscall.SIGKILL)
					mu.Lock()
					killed = append(killed, fmt.Sprintf("%.200s (%d MB)", strings.ReplaceAll(string(cmdline), "\x00", " "), rss>>20))
					mu.Unlock()
				}
			}
		}
	})
	t.Cleanup(func() { close(done); wg.Wait() })
	return func() (int64, []string) {
		mu.Lock()
		defer mu.Unlock()
		if max.Load() > 0 {
			t.Logf("largest child of gopls: %d MB (%s)", max.Load()>>20, peakCmd)
		}
		return max.Load(), append([]string(nil), killed...)
	}
}

// TestShieldFoldersGoReads puts a special file — a link to /dev/urandom,
// a FIFO no one writes — in each kind of folder the watcher skips but the
// go command reads: vendor/ in vendor mode, an imported testdata/ or _dep/
// package, a module go.work uses outside the root. The load must end, a
// call about the package that imports it must answer, and no go command
// may read the file (none grows past floodBound).
func TestShieldFoldersGoReads(t *testing.T) {
	for _, tc := range shieldCases() {
		for _, kind := range []string{"urandom", "fifo"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				root := shieldWorkspace(t, tc, kind)
				c := startWith(t, Options{Root: root, Timeout: 10 * time.Second, LoadTimeout: shieldBound})
				peak := watchGroupMemory(t, c)
				waitFor(t, shieldBound, "the workspace to load", c.Loaded)
				ctx, cancel := context.WithTimeout(context.Background(), shieldBound)
				defer cancel()
				text, err := hoverOK(ctx, c, root)
				if err != nil || !strings.Contains(text, "OK() int") {
					t.Errorf("hover on dep.OK: want OK() int, got %q, %v", text, err)
				}
				if _, killed := peak(); len(killed) > 0 {
					t.Errorf("gopls's go commands read the special file: killed past %d MB: %q", floodBound>>20, killed)
				}
			})
		}
	}
}

// twoPackages writes a module of packages a and b, each with a function
// that main.go uses, and returns its root.
func twoPackages(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport (\n\t\"example.com/m/a\"\n\t\"example.com/m/b\"\n)\n\nfunc main() { _ = a.A() + b.B() }\n",
		"a/a.go":  "package a\n\n// A is in package a.\nfunc A() int { return 1 }\n",
		"b/b.go":  "package b\n\n// B is in package b.\nfunc B() int { return 2 }\n",
	})
	return root
}

// hoverAt asks for hover at a position of a file under root.
func hoverAt(ctx context.Context, c *Client, root, rel string, line, char int) (string, error) {
	var h struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	err := c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": FileURI(filepath.Join(root, rel))},
		"position":     map[string]any{"line": line, "character": char},
	}, &h)
	return h.Contents.Value, err
}

// checkHovers asks about a.A and b.B, from main.go and from their own
// files, each within shieldBound.
func checkHovers(t *testing.T, c *Client, root, when string) {
	t.Helper()
	for _, q := range []struct {
		rel        string
		line, char int
		want       string
	}{
		{"main.go", 7, 21, "A() int"},
		{"main.go", 7, 29, "B() int"},
		{"a/a.go", 3, 6, "A() int"},
		{"b/b.go", 3, 6, "B() int"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), shieldBound)
		began := time.Now()
		text, err := hoverAt(ctx, c, root, q.rel, q.line, q.char)
		cancel()
		if err != nil || !strings.Contains(text, q.want) {
			t.Errorf("%s: hover in %s at %d:%d after %s: want %q, got %q, %v", when, q.rel, q.line, q.char,
				time.Since(began).Round(time.Millisecond), q.want, text, err)
		}
	}
}

// TestShieldFileAfterLoad saves a special file into package a after the
// workspace load — a FIFO no one writes, a link to /dev/urandom — and
// asks about both packages: the calls must answer, gopls must never be
// blocked on the file (it must not be replaced for it either: it is
// hidden before gopls hears of it), no go command may read it, and once
// the file is gone the calls still answer.
func TestShieldFileAfterLoad(t *testing.T) {
	for _, kind := range []string{"fifo", "urandom"} {
		for _, watch := range []string{"inotify", "poll"} {
			t.Run(kind+"/"+watch, func(t *testing.T) {
				root := twoPackages(t)
				c := startWith(t, Options{Root: root, Timeout: 5 * time.Second, LoadTimeout: shieldBound, Watch: watch})
				peak := watchGroupMemory(t, c)
				waitFor(t, shieldBound, "the workspace to load", c.Loaded)
				checkHovers(t, c, root, "before")
				pid := c.PID()

				special := filepath.Join(root, "a", "x.go")
				makeSpecial(t, special, kind)
				checkHovers(t, c, root, "with "+kind)
				if h := c.Health(); h.PID != pid || h.Restarts != 0 {
					t.Errorf("gopls was replaced (%+v): it read the special file", h)
				}
				if err := os.Remove(special); err != nil {
					t.Fatal(err)
				}
				checkHovers(t, c, root, "after it is gone")
				if _, killed := peak(); len(killed) > 0 {
					t.Errorf("gopls's group read the special file: killed past %d MB: %q", floodBound>>20, killed)
				}
			})
		}
	}
}
