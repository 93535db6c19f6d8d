package lspclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hoverText(t *testing.T, ctx context.Context, c *Client, uri string, line, char int) string {
	t.Helper()
	var h struct {
		Contents struct{ Value string }
	}
	err := c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": line, "character": char},
	}, &h)
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	return h.Contents.Value
}

func symbolNames(t *testing.T, ctx context.Context, c *Client, query string) string {
	t.Helper()
	var syms []struct{ Name string }
	// A search of the workspace: it waits for new packages to load.
	if err := c.Call(WorkspaceWide(ctx), "workspace/symbol", map[string]any{"query": query}, &syms); err != nil {
		t.Fatalf("workspace/symbol: %v", err)
	}
	b, _ := json.Marshal(syms)
	return string(b)
}

// TestWatchFreshness changes files on disk between two requests and
// expects the second answer to see each change, with no waiting.
func TestWatchFreshness(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files not open are watched on Linux only")
	}
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	// The package directories are watched once gopls has listed them.
	waitWatching(t, c, filepath.Join(root, "shapes"))

	// An open document, opened from disk, then fixed on disk.
	broken := filepath.Join(root, "broken", "broken.go")
	data, _ := os.ReadFile(broken)
	bURI := FileURI(broken)
	if _, err := c.Sync(ctx, bURI, string(data)); err != nil {
		t.Fatal(err)
	}
	if d, err := c.DiagnoseFile(ctx, bURI); err != nil || len(d) != 1 {
		t.Fatalf("diagnostics before the fix = %v, %v; want one", d, err)
	}
	fixed := strings.Replace(string(data), `H: "1"`, `H: 1`, 1)
	writeFile(t, broken, fixed)
	if d, err := c.DiagnoseFile(ctx, bURI); err != nil || len(d) != 0 {
		t.Errorf("diagnostics after fixing the file on disk = %v, %v; want none", d, err)
	}
	if text, version, open := c.Document(bURI); !open || text != fixed || version != 2 {
		t.Errorf("the document opened from disk after the file changed: open %v, version %d, new text %v; want it changed to the new text", open, version, text == fixed)
	}
	// Gone from disk: closed.
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	c.Refresh()
	if _, _, open := c.Document(bURI); open {
		t.Error("the document opened from disk is still open after its file was removed")
	}
	writeFile(t, broken, string(data))

	// A file gopls has not opened, referenced by the answer.
	report := FileURI(filepath.Join(root, "report", "report.go"))
	if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea sums") {
		t.Fatalf("hover on TotalArea = %q", h)
	}
	shapes := filepath.Join(root, "shapes", "shapes.go")
	data, _ = os.ReadFile(shapes)
	writeFile(t, shapes, strings.Replace(string(data), "TotalArea sums the areas", "TotalArea adds up the areas", 1))
	if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea adds up") {
		t.Errorf("hover after changing the doc comment on disk = %q", h)
	}

	// A new file in a package, and a new package.
	writeFile(t, filepath.Join(root, "shapes", "extra.go"), "package shapes\n\nfunc ExtraWatched() {}\n")
	writeFile(t, filepath.Join(root, "newpkg", "deep", "new.go"), "package deep\n\nfunc BrandNewWatched() {}\n")
	if got := symbolNames(t, ctx, c, "ExtraWatched"); !strings.Contains(got, "ExtraWatched") {
		t.Errorf("symbols after adding extra.go = %s", got)
	}
	if got := symbolNames(t, ctx, c, "BrandNewWatched"); !strings.Contains(got, "BrandNewWatched") {
		t.Errorf("symbols after adding newpkg/deep/new.go = %s", got)
	}
	// And gone again.
	if err := os.RemoveAll(filepath.Join(root, "newpkg")); err != nil {
		t.Fatal(err)
	}
	if got := symbolNames(t, ctx, c, "BrandNewWatched"); strings.Contains(got, "BrandNewWatched") {
		t.Errorf("symbols after removing newpkg = %s", got)
	}
}

// TestWatchGoMod changes go.mod's go version so that a file becomes wrong.
func TestWatchGoMod(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files not open are watched on Linux only")
	}
	root := exampleRoot(t)
	writeFile(t, filepath.Join(root, "loop", "loop.go"), "package loop\n\nfunc Count() (n int) {\n\tfor i := range 10 {\n\t\tn += i\n\t}\n\treturn n\n}\n")
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uri := FileURI(filepath.Join(root, "loop", "loop.go"))
	if d, err := c.DiagnoseFile(ctx, uri); err != nil || len(d) != 0 {
		t.Fatalf("diagnostics with go 1.26 = %v, %v; want none", d, err)
	}
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/shapes\n\ngo 1.21\n")
	d, err := c.DiagnoseFile(ctx, uri)
	if err != nil || len(d) == 0 || !strings.Contains(d[0].Message, "go1.22") {
		t.Errorf("diagnostics after lowering go.mod's version = %v, %v; want range-over-int to need go1.22", d, err)
	}
}

// TestWatchLeavesOverlays checks that a change on disk does not replace an
// overlay, and that a held document is refreshed only when let go.
func TestWatchLeavesOverlays(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	main := filepath.Join(root, "main.go")
	data, _ := os.ReadFile(main)
	overlay := string(data) + "\n// unsaved\n"
	mURI := FileURI(main)
	l, err := c.Hold(ctx, mURI, overlay, true)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()

	report := filepath.Join(root, "report", "report.go")
	rdata, _ := os.ReadFile(report)
	rURI := FileURI(report)
	held, err := c.Hold(ctx, rURI, string(rdata), false)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, main, string(data)+"\n// saved differently\n")
	writeFile(t, report, string(rdata)+"\n// changed\n")
	if err := c.Call(ctx, "workspace/symbol", map[string]any{"query": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if text, _, ok := c.Document(mURI); !ok || text != overlay {
		t.Errorf("overlay after a change on disk: open %v, text changed %v", ok, text != overlay)
	}
	if text, _, ok := c.Document(rURI); !ok || text != string(rdata) {
		t.Errorf("held document after a change on disk: open %v, text changed %v; want it kept while held", ok, text != string(rdata))
	}
	held.Release()
	if _, _, ok := c.Document(rURI); ok {
		t.Error("held document changed on disk is still open after release")
	}
}

// waitWatching waits until the package directories are watched, and
// checks that dir is one of them.
func waitWatching(t *testing.T, c *Client, dir string) {
	t.Helper()
	select {
	case <-c.watch.ready:
	case <-time.After(30 * time.Second):
		t.Fatal("package directories not watched after 30s")
	}
	c.watch.mu.Lock()
	defer c.watch.mu.Unlock()
	if c.watch.fs == nil || !c.watch.fs.watching(dir) {
		t.Fatalf("%s is not watched", dir)
	}
}

// TestWatchStatFallback checks the fallback used where directories cannot
// be watched (other platforms, or past maxWatches): open documents are
// checked with stat at each request.
func TestWatchStatFallback(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	<-c.watch.ready
	c.watch.mu.Lock()
	if c.watch.fs != nil {
		c.watch.fs.close()
		c.watch.fs = nil
	}
	c.watch.mu.Unlock()

	broken := filepath.Join(root, "broken", "broken.go")
	data, _ := os.ReadFile(broken)
	uri := FileURI(broken)
	if _, err := c.Sync(ctx, uri, string(data)); err != nil {
		t.Fatal(err)
	}
	if d, err := c.DiagnoseFile(ctx, uri); err != nil || len(d) != 1 {
		t.Fatalf("diagnostics before the fix = %v, %v; want one", d, err)
	}
	// A different size, so that the change shows even where file times
	// are coarse.
	writeFile(t, broken, strings.Replace(string(data), `H: "1"`, `H: 1.0`, 1))
	if d, err := c.DiagnoseFile(ctx, uri); err != nil || len(d) != 0 {
		t.Errorf("diagnostics after fixing the file on disk = %v, %v; want none", d, err)
	}
	// And again: the document is still checked.
	writeFile(t, broken, strings.Replace(string(data), `H: "1"`, `H: "10"`, 1))
	if d, err := c.DiagnoseFile(ctx, uri); err != nil || len(d) != 1 {
		t.Errorf("diagnostics after breaking the file again = %v, %v; want one", d, err)
	}
}

// BenchmarkBarrierIdle measures what every request pays when nothing
// changed on disk: one non-blocking read.
func BenchmarkBarrierIdle(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/example")); err != nil {
		b.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	gopls, _ := filepath.Abs("../bin/gopls")
	c, err := Start(context.Background(), Options{Gopls: gopls, Root: root})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	<-c.watch.ready
	b.ResetTimer()
	for b.Loop() {
		c.Refresh()
	}
}

// TestWatchStandardLibrary opens GOROOT/src as the workspace (module std,
// for which gopls names no module) and expects its package directories to
// be watched, as a module's are: answers kept between calls depend on it.
func TestWatchStandardLibrary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("directories are watched on Linux only")
	}
	if testing.Short() {
		t.Skip("loads the standard library")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("no GOROOT/src here: %v", err)
	}
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.watch.ready:
	case <-ctx.Done():
		t.Fatal("the package directories were never listed")
	}
	for _, dir := range []string{"net/http", "go/types", "crypto/internal/fips140/drbg"} {
		if !c.Watched(filepath.Join(root, filepath.FromSlash(dir))) {
			t.Errorf("%s is not watched", dir)
		}
	}
	if c.Watched(filepath.Join(root, "cmd", "go", "testdata")) {
		t.Errorf("cmd/go/testdata, which holds no package of the workspace, is watched")
	}
}
