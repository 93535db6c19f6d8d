package lspclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// renewFixture is a module of four packages, a to d, each with one file,
// and a client on it that renews gopls's view after three packages'
// files are closed.
func renewFixture(t *testing.T) (*Client, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/renew\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "b", "c", "d"} {
		if err := os.Mkdir(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p, p+".go"), []byte(pkgText(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startWith(t, Options{Root: root})
	c.renew.mu.Lock()
	c.renew.after = 3
	c.renew.noGap = true
	c.renew.mu.Unlock()
	return c, root
}

func pkgText(p string) string {
	return fmt.Sprintf("package %s\n\nfunc %s() {}\n", p, strings.ToUpper(p))
}

// viewIDs returns the IDs of gopls's views.
func viewIDs(t *testing.T, ctx context.Context, c *Client) string {
	t.Helper()
	var views []struct{ ID string }
	if err := c.ExecuteCommand(ctx, "gopls.views", nil, &views); err != nil {
		t.Fatalf("gopls.views: %v", err)
	}
	var ids []string
	for _, v := range views {
		ids = append(ids, v.ID)
	}
	return strings.Join(ids, ",")
}

// readAndClose holds each package's file as read from disk, lets go, and
// has the client close the files it kept open, as a daemon does.
func readAndClose(t *testing.T, ctx context.Context, c *Client, root string, pkgs ...string) {
	t.Helper()
	for _, p := range pkgs {
		l, err := c.HoldDisk(ctx, FileURI(filepath.Join(root, p, p+".go")), pkgText(p))
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
	}
	c.CloseKept()
}

// TestRenewalDropsClosedPackages: once the files closed in gopls span
// enough packages, the next request to end with none other in flight
// renews gopls's view (gopls keeps those packages' type-checked data for
// the view's life otherwise), and a session's unsaved buffer is still
// what gopls answers from after it.
func TestRenewalDropsClosedPackages(t *testing.T) {
	c, root := renewFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	before := viewIDs(t, ctx, c)

	unsavedURI := FileURI(filepath.Join(root, "a", "unsaved.go"))
	unsaved, err := c.Hold(ctx, unsavedURI, "package a\n\n// Unsaved exists only in the session's buffer.\nfunc Unsaved() {}\n", true)
	if err != nil {
		t.Fatal(err)
	}
	unsaved.Release()

	readAndClose(t, ctx, c, root, "b", "c")
	if got := viewIDs(t, ctx, c); got != before || c.Renewals() != 0 {
		t.Fatalf("after two packages closed: views %q, %d renewals; want %q, none", got, c.Renewals(), before)
	}
	readAndClose(t, ctx, c, root, "d")
	// The request that ends with the third package closed renews the
	// view; the one after it is answered by the new view.
	viewIDs(t, ctx, c)
	after := viewIDs(t, ctx, c)
	if after == before || c.Renewals() != 1 {
		t.Fatalf("after three packages closed: views %q (before %q), %d renewals; want a new view, one renewal", after, before, c.Renewals())
	}

	var hover struct {
		Contents struct{ Value string }
	}
	err = c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": unsavedURI},
		"position":     map[string]any{"line": 3, "character": 6},
	}, &hover)
	if err != nil {
		t.Fatalf("hover on the unsaved buffer after the renewal: %v", err)
	}
	if !strings.Contains(hover.Contents.Value, "exists only in the session's buffer") {
		t.Errorf("hover on the unsaved buffer after the renewal = %q, want its doc comment", hover.Contents.Value)
	}
}

// TestNoRenewalWithEditor: an attached editor's workspace is never
// reloaded under it; the renewal waits until the editor has gone.
func TestNoRenewalWithEditor(t *testing.T) {
	c, root := renewFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	before := viewIDs(t, ctx, c)
	editor := editorOnPipe(t, ctx, c)

	readAndClose(t, ctx, c, root, "b", "c", "d")
	viewIDs(t, ctx, c)
	if got := viewIDs(t, ctx, c); got != before || c.Renewals() != 0 {
		t.Fatalf("with an editor attached: views %q, %d renewals; want %q, none", got, c.Renewals(), before)
	}

	editor.Close()
	deadline := time.Now().Add(time.Minute)
	for c.hasEditors() {
		if time.Now().After(deadline) {
			t.Fatal("the editor was still attached a minute after its connection closed")
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	viewIDs(t, ctx, c)
	if got := viewIDs(t, ctx, c); got == before || c.Renewals() != 1 {
		t.Errorf("after the editor went: views %q (before %q), %d renewals; want a new view, one renewal", got, before, c.Renewals())
	}
}

// TestDueRenewalDrainsRequests: with a renewal due and a request in
// flight, a new request waits for it to end (so that the renewal finds
// its moment among sessions that call all the time), and never longer
// than drainWait.
func TestDueRenewalDrainsRequests(t *testing.T) {
	c := &Client{}
	c.renew.after = 1
	c.renew.closed = map[string]bool{"/w/a": true}
	ctx := context.Background()
	end1 := c.beginRequest(ctx)
	began := make(chan func(), 1)
	go func() { began <- c.beginRequest(ctx) }()
	deadline := time.Now().Add(time.Minute)
	for {
		c.renew.mu.Lock()
		waiting := c.renew.drained != nil
		c.renew.mu.Unlock()
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second request never waited for the first")
		}
		runtime.Gosched()
	}
	select {
	case <-began:
		t.Fatal("the second request began while the first was in flight and a renewal was due")
	default:
	}
	end1()
	select {
	case end2 := <-began:
		end2()
	case <-time.After(time.Minute):
		t.Fatal("the second request still waited a minute after the first ended")
	}

	// A request that never ends holds the others for drainWait at most.
	end3 := c.beginRequest(ctx)
	defer end3()
	c.renew.mu.Lock()
	c.renew.holdUntil = time.Time{}
	c.renew.mu.Unlock()
	start := time.Now()
	c.beginRequest(ctx)()
	if waited := time.Since(start); waited < drainWait/2 || waited > drainWait+time.Second {
		t.Errorf("a request behind one that never ends waited %v, want about %v", waited, drainWait)
	}
}

// TestRenewalGap checks that renewals made for the count are spaced by
// the gap, and that one asked for (the daemon's last session gone) is not.
func TestRenewalGap(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name   string
		closed int
		last   time.Time
		asked  bool
		want   bool
	}{
		{name: "count reached, gap passed", closed: 2, last: now.Add(-2 * time.Hour), want: true},
		{name: "count reached, within the gap", closed: 2, last: now},
		{name: "count short, gap passed", closed: 1, last: now.Add(-2 * time.Hour)},
		{name: "asked, within the gap", closed: 1, last: now, asked: true, want: true},
		{name: "asked, nothing closed", last: now.Add(-2 * time.Hour), asked: true},
	} {
		r := renewal{after: 2, gap: time.Hour, last: tc.last, asked: tc.asked, closed: map[string]bool{}}
		for i := range tc.closed {
			r.closed[fmt.Sprint("/w/", i)] = true
		}
		if got := r.dueLocked(); got != tc.want {
			t.Errorf("%s: due %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRecycleReplacesGopls: at a renewal's moment, a gopls past its
// memory limit is replaced rather than its view renewed: a new process,
// which has the session's unsaved buffer, and no crash counted.
func TestRecycleReplacesGopls(t *testing.T) {
	if _, ok := residentBytes(os.Getpid()); !ok {
		t.Skip("no resident memory to read on this system")
	}
	c, root := renewFixture(t)
	c.renew.mu.Lock()
	// Any gopls is past this limit, at the first moment it is looked at.
	c.renew.limit = func(base int64) int64 { return base / 2 }
	c.renew.noSettle = true
	c.renew.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	viewIDs(t, ctx, c)
	before := c.PID()

	unsavedURI := FileURI(filepath.Join(root, "a", "unsaved.go"))
	unsaved, err := c.Hold(ctx, unsavedURI, "package a\n\n// Unsaved exists only in the session's buffer.\nfunc Unsaved() {}\n", true)
	if err != nil {
		t.Fatal(err)
	}
	unsaved.Release()
	readAndClose(t, ctx, c, root, "b", "c", "d")
	// The request that ends with the third package closed finds gopls
	// past its limit; the supervisor replaces it apart from the requests
	// (on a loaded machine a request can still reach the old gopls
	// first), so the test waits for the replacement, then asks.
	viewIDs(t, ctx, c)
	waitFor(t, time.Minute, "gopls replaced for its memory", func() bool { return c.Recycles() >= 1 && c.PID() != before && c.PID() != 0 })
	viewIDs(t, ctx, c)
	var hover struct {
		Contents struct{ Value string }
	}
	err = c.Call(ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": unsavedURI},
		"position":     map[string]any{"line": 3, "character": 6},
	}, &hover)
	if err != nil {
		t.Fatalf("hover on the unsaved buffer after the replacement: %v", err)
	}
	if !strings.Contains(hover.Contents.Value, "exists only in the session's buffer") {
		t.Errorf("hover on the unsaved buffer after the replacement = %q, want its doc comment", hover.Contents.Value)
	}
	after := c.PID()
	c.mu.Lock()
	restarts := c.restarts
	c.mu.Unlock()
	if after == before || c.Recycles() != 1 || c.Renewals() != 0 || restarts != 0 {
		t.Errorf("gopls %d → %d, %d replaced, %d renewals, %d restarts; want a new gopls, one replaced, no renewal, no restart", before, after, c.Recycles(), c.Renewals(), restarts)
	}
	if alive(before) {
		t.Errorf("the replaced gopls %d still runs", before)
	}
}

// TestRecycleDue: gopls's lowest size counts once it has settled, and it
// is replaced once past half as much again and 512 MiB more.
func TestRecycleDue(t *testing.T) {
	const mib = 1 << 20
	start := time.Now()
	type step struct {
		after     time.Duration
		rss, base int64
		due       bool
	}
	for _, run := range []struct {
		name  string
		steps []step
	}{
		{"GOROOT/src", []step{
			{time.Minute, 2600 * mib, 0, false}, // the load's peak: not yet settled
			{5 * time.Minute, 1700 * mib, 1700 * mib, false},
			{6 * time.Minute, 1900 * mib, 1700 * mib, false},
			{7 * time.Minute, 1500 * mib, 1500 * mib, false}, // a lower base
			{10 * time.Minute, 2200 * mib, 1500 * mib, false},
			{12 * time.Minute, 2300 * mib, 1500 * mib, true}, // past 1.5× and +512 MiB
		}},
		{"small workspace", []step{
			{5 * time.Minute, 300 * mib, 300 * mib, false},
			{7 * time.Minute, 800 * mib, 300 * mib, false}, // 2.7×, but under +512 MiB
			{9 * time.Minute, 813 * mib, 300 * mib, true},
		}},
	} {
		r := renewal{started: start}
		for _, step := range run.steps {
			base, _, due := r.recycleDueLocked(step.rss, start.Add(step.after))
			if base != step.base || due != step.due {
				t.Errorf("%s, RSS %d MiB after %s: base %d MiB, due %v; want %d MiB, %v", run.name, step.rss/mib, step.after, base/mib, due, step.base/mib, step.due)
			}
		}
	}
}
