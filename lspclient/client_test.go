package lspclient

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// goplsPath returns the gopls the tests run: the pinned one that make
// builds into bin/, or the one $GOPLSMCP_TEST_GOPLS names (make
// test-gopls-compat names another gopls).
func goplsPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(cmp.Or(os.Getenv("GOPLSMCP_TEST_GOPLS"), "../bin/gopls"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run make build (or make test) first", p)
	}
	return p
}

// exampleRoot copies the example module to a temporary directory and
// returns its symlink-free path.
func exampleRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/example")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func startClient(t *testing.T, root string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{Gopls: goplsPath(t), Root: root})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func alive(pid int) bool {
	return signalPID(pid, 0) == nil
}

// closeBound is how long the tests let Close take. Its waits (shutdown,
// exit, SIGTERM, SIGKILL) add up to under 1.5 s; a Close that blocks on
// a stuck write or an unreaped child never ends, so the bound tells those
// apart with room for a busy machine (2.11 s was seen at a load of 48).
const closeBound = 10 * time.Second

func TestStartLoadClose(t *testing.T) {
	c := startClient(t, exampleRoot(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatalf("WaitLoaded: %v", err)
	}
	if v := c.Version(); !strings.HasPrefix(v, "v0.") {
		t.Errorf("Version() = %q, want a gopls module version", v)
	}
	pid := c.PID()
	if !alive(pid) {
		t.Fatalf("gopls %d is not running after Start", pid)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > closeBound {
		t.Errorf("Close took %s, want under %s", d, closeBound)
	}
	if alive(pid) {
		t.Errorf("gopls %d still exists after Close", pid)
	}
	select {
	case <-c.Exited():
	default:
		t.Error("Exited() not closed after Close")
	}
}

func TestSyncAndDiagnoseFile(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := filepath.Join(root, "broken", "broken.go")
	uri := FileURI(path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Sync(ctx, uri, string(data))
	if err != nil || v != 1 {
		t.Fatalf("Sync = %d, %v; want version 1", v, err)
	}
	diags, err := c.DiagnoseFile(ctx, uri)
	if err != nil {
		t.Fatalf("DiagnoseFile: %v", err)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Message, `cannot use "1" (untyped string constant) as float64 value`) ||
		diags[0].Range.Start.Line != 7 || diags[0].Range.Start.Character != 29 {
		t.Fatalf("diagnostics of broken.go = %+v, want the one type error at 7:29", diags)
	}

	fixed := strings.Replace(string(data), `H: "1"`, `H: 1`, 1)
	if v, err := c.Sync(ctx, uri, fixed); err != nil || v != 2 {
		t.Fatalf("Sync(fixed) = %d, %v; want version 2", v, err)
	}
	if v, _ := c.Sync(ctx, uri, fixed); v != 2 {
		t.Errorf("Sync of unchanged text moved the version to %d", v)
	}
	diags, err = c.DiagnoseFile(ctx, uri)
	if err != nil || len(diags) != 0 {
		t.Fatalf("diagnostics after the fix = %+v, %v; want none", diags, err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(data) {
		t.Error("syncing a buffer changed the file on disk")
	}
}

func TestDiagnoseWorkspace(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.DiagnoseWorkspace(ctx, FileURI(filepath.Join(root, "main.go"))); err != nil {
		t.Fatalf("DiagnoseWorkspace: %v", err)
	}
	got := c.PublishedDiagnostics()
	broken := FileURI(filepath.Join(root, "broken", "broken.go"))
	if len(got) != 1 || len(got[broken]) != 1 {
		t.Fatalf("published diagnostics = %v, want one for broken.go only", got)
	}
}

func TestLocate(t *testing.T) {
	if _, err := Locate(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, ErrGoplsNotFound) {
		t.Errorf("Locate(missing) = %v, want ErrGoplsNotFound", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := Locate("")
	// The test binary has no gopls beside it and PATH is empty.
	if !errors.Is(err, ErrGoplsNotFound) {
		t.Fatalf("Locate(\"\") with nothing anywhere = %v, want ErrGoplsNotFound", err)
	}
	for _, place := range []string{"--gopls", "beside goplsmcp", "on PATH"} {
		if !strings.Contains(err.Error(), place) {
			t.Errorf("Locate error %q does not name %q", err, place)
		}
	}
	p, err := Locate(goplsPath(t))
	if err != nil || p != goplsPath(t) {
		t.Errorf("Locate(explicit) = %q, %v", p, err)
	}
}

// TestOnDiagnostics checks that OnDiagnostics sees each publication as
// gopls sends it, the store already holding it: a type error when the
// file is opened, and an empty list once it is fixed.
func TestOnDiagnostics(t *testing.T) {
	root := exampleRoot(t)
	type publication struct {
		uri      string
		messages []string
		stored   bool // PublishedDiagnostics agreed when it came
	}
	got := make(chan publication, 64)
	// The hook must not block, so it does not wait for Start to return:
	// what comes before is not this test's.
	var started atomic.Pointer[Client]
	c := startWith(t, Options{Root: root, OnDiagnostics: func(uri string, diags []protocol.Diagnostic) {
		c := started.Load()
		if c == nil {
			return
		}
		p := publication{uri: uri}
		for _, d := range diags {
			p.messages = append(p.messages, d.Message)
		}
		p.stored = len(c.PublishedDiagnostics()[uri]) == len(diags)
		select {
		case got <- p:
		default:
		}
	}})
	started.Store(c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := filepath.Join(root, "broken", "broken.go")
	uri := FileURI(path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// await returns the first publication for uri that satisfies ok.
	await := func(what string, ok func(publication) bool) {
		t.Helper()
		for {
			select {
			case p := <-got:
				if p.uri != uri || !ok(p) {
					continue
				}
				if !p.stored {
					t.Errorf("%s: PublishedDiagnostics did not hold the publication when OnDiagnostics ran", what)
				}
				return
			case <-ctx.Done():
				t.Fatalf("%s: no publication for broken.go within the deadline", what)
			}
		}
	}
	if _, err := c.Sync(ctx, uri, string(data)); err != nil {
		t.Fatal(err)
	}
	await("opened", func(p publication) bool {
		return len(p.messages) == 1 && strings.Contains(p.messages[0], `cannot use "1" (untyped string constant) as float64 value`)
	})
	if _, err := c.Sync(ctx, uri, strings.Replace(string(data), `H: "1"`, `H: 1`, 1)); err != nil {
		t.Fatal(err)
	}
	await("fixed", func(p publication) bool { return len(p.messages) == 0 })
}
