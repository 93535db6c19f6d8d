package lspclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStoppedGoplsHoldsNoLock stops gopls (SIGSTOP: it reads nothing
// more) while a document larger than the pipe's buffer is being sent to
// it, so that the write cannot finish. Holding and releasing other
// documents, closing one, and telling gopls of a change on disk must all
// go on meanwhile: no lock of the client is held across the write. Once
// gopls runs again it gets everything, in order.
func TestStoppedGoplsHoldsNoLock(t *testing.T) {
	root := exampleRoot(t)
	// Long enough that the stopped gopls is not replaced during the test.
	c := startWith(t, Options{Root: root, Timeout: 2 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	waitWatching(t, c, filepath.Join(root, "shapes"))
	report := FileURI(filepath.Join(root, "report", "report.go"))
	if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea sums") {
		t.Fatalf("hover on TotalArea = %q", h)
	}
	p := c.live()
	stopProcess(t, p.pid)
	t.Cleanup(func() { signalPID(p.pid, sigCont) })

	// An unsaved shapes.go with another doc comment and 1 MiB of comment.
	shapesPath := filepath.Join(root, "shapes", "shapes.go")
	disk, err := os.ReadFile(shapesPath)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Replace(string(disk), "TotalArea sums the areas", "TotalArea adds up the areas", 1) +
		strings.Repeat("// filler to fill the pipe\n", 40000)
	shapes := FileURI(shapesPath)
	l, err := c.Hold(ctx, shapes, big, true)
	if err != nil {
		t.Fatal(err)
	}
	c.notes.mu.Lock()
	bigNote := c.notes.queued
	c.notes.mu.Unlock()
	// Taken by the writer, and not written.
	stuck := func() bool {
		c.notes.mu.Lock()
		defer c.notes.mu.Unlock()
		return c.notes.written < bigNote
	}
	waitFor(t, 10*time.Second, "the writer to take the big document", func() bool {
		c.notes.mu.Lock()
		defer c.notes.mu.Unlock()
		return len(c.notes.notes) == 0
	})

	// Meanwhile, on this goroutine: each returns without waiting for it.
	mainPath := filepath.Join(root, "main.go")
	mainText, _ := os.ReadFile(mainPath)
	m, err := c.Hold(ctx, FileURI(mainPath), string(mainText), false)
	if err != nil {
		t.Fatal(err)
	}
	m.Release()
	l.Release()
	if _, err := c.CloseDocument(ctx, FileURI(mainPath)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "shapes", "extra.go"), "package shapes\n\nfunc ExtraWhileStopped() {}\n")
	c.Refresh()
	if _, _, ok := c.Document(shapes); !ok {
		t.Error("the unsaved shapes.go is not open")
	}
	if !stuck() || p.ctx.Err() != nil {
		t.Fatalf("the big document's write ended (gopls failed: %v) before the calls above returned: they waited for it", context.Cause(p.ctx))
	}

	// gopls reads it all, in order, before the next request.
	if err := signalPID(p.pid, sigCont); err != nil {
		t.Fatal(err)
	}
	if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea adds up") {
		t.Errorf("hover on TotalArea after gopls resumed = %q; want the unsaved doc comment", h)
	}
	if got := symbolNames(t, ctx, c, "ExtraWhileStopped"); !strings.Contains(got, "ExtraWhileStopped") {
		t.Errorf("symbols after gopls resumed = %s; want the file written while it was stopped", got)
	}
	if h := c.Health(); h.PID != p.pid || h.Restarts != 0 {
		t.Errorf("Health = %+v; want the same gopls, never restarted", h)
	}
}

// TestCloseWhileWriteStuck closes the client while a notification is being
// written to a gopls that stopped reading: Close still ends within
// closeBound, and gopls is reaped.
func TestCloseWhileWriteStuck(t *testing.T) {
	root := exampleRoot(t)
	c := startWith(t, Options{Root: root, Timeout: 2 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	pid := c.PID()
	stopProcess(t, pid)
	t.Cleanup(func() { signalPID(pid, sigCont) })
	big := "package big\n\n" + strings.Repeat("// filler to fill the pipe\n", 40000)
	if _, err := c.Hold(ctx, FileURI(filepath.Join(root, "big", "big.go")), big, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the writer to take the big document", func() bool {
		c.notes.mu.Lock()
		defer c.notes.mu.Unlock()
		return len(c.notes.notes) == 0 && c.notes.written < c.notes.queued
	})
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > closeBound {
		t.Errorf("Close took %s with a write stuck, want under %s", d, closeBound)
	}
	waitFor(t, 5*time.Second, "gopls is reaped", func() bool { return reaped(pid) })
}
