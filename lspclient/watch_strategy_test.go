package lspclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// strategies are the watchers the freshness test runs under: inotify, the
// poller, and "auto" where inotify cannot be had (the fallback).
var strategies = []struct {
	name, watch string
	noInotify   bool
}{
	{"inotify", "inotify", false},
	{"poll", "poll", false},
	{"auto without inotify", "auto", true},
}

// TestWatchStrategiesFreshness changes, adds and removes files on disk,
// switches 50 files at once as a checkout does, and changes a file while a
// call runs, under each strategy: the next call sees every change.
func TestWatchStrategiesFreshness(t *testing.T) {
	for _, s := range strategies {
		t.Run(s.name, func(t *testing.T) {
			if s.watch == "inotify" && runtime.GOOS != "linux" {
				t.Skip("inotify is Linux only")
			}
			root := exampleRoot(t)
			const branchFiles = 50
			for i := range branchFiles {
				writeFile(t, filepath.Join(root, "branch", fmt.Sprintf("f%02d.go", i)),
					fmt.Sprintf("package branch\n\nfunc OnMain%02d() {}\n", i))
			}
			testNoInotify = s.noInotify
			t.Cleanup(func() { testNoInotify = false }) // after the client's Close
			c := startWith(t, Options{Root: root, Watch: s.watch})
			if _, polling := c.watch.fs.(*poller); polling != (s.watch != "inotify") {
				t.Fatalf("the watcher is %s under --watch %s", fsKind(c.watch.fs), s.watch)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := c.WaitLoaded(ctx); err != nil {
				t.Fatal(err)
			}
			<-c.watch.ready

			// An external edit of a file no call opened.
			report := FileURI(filepath.Join(root, "report", "report.go"))
			if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea sums") {
				t.Fatalf("hover on TotalArea = %q", h)
			}
			shapes := filepath.Join(root, "shapes", "shapes.go")
			data, _ := os.ReadFile(shapes)
			writeFile(t, shapes, strings.Replace(string(data), "TotalArea sums the areas", "TotalArea adds up the areas", 1))
			if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea adds up") {
				t.Errorf("hover after an external edit = %q, want the new doc comment", h)
			}

			// A new file, and a removed one.
			extra := filepath.Join(root, "shapes", "extra.go")
			writeFile(t, extra, "package shapes\n\nfunc ExtraWatched() {}\n")
			if got := symbolNames(t, ctx, c, "ExtraWatched"); !strings.Contains(got, "ExtraWatched") {
				t.Errorf("symbols after adding extra.go = %s", got)
			}
			if err := os.Remove(extra); err != nil {
				t.Fatal(err)
			}
			if got := symbolNames(t, ctx, c, "ExtraWatched"); strings.Contains(got, "ExtraWatched") {
				t.Errorf("symbols after removing extra.go = %s", got)
			}

			// A branch switch: 50 files rewritten at once.
			if got := symbolNames(t, ctx, c, "OnMain"); strings.Count(got, "OnMain") != branchFiles {
				t.Fatalf("symbols before the switch = %s, want %d", got, branchFiles)
			}
			for i := range branchFiles {
				writeFile(t, filepath.Join(root, "branch", fmt.Sprintf("f%02d.go", i)),
					fmt.Sprintf("package branch\n\nfunc OnTopic%02d() {}\n", i))
			}
			if got := symbolNames(t, ctx, c, "OnTopic"); strings.Count(got, "OnTopic") != branchFiles {
				t.Errorf("symbols after switching 50 files: %d OnTopic, want %d", strings.Count(got, "OnTopic"), branchFiles)
			}
			if got := symbolNames(t, ctx, c, "OnMain"); strings.Contains(got, "OnMain") {
				t.Errorf("symbols of the old branch after the switch: %s", got)
			}

			// A file changed while a call runs: the next call sees it.
			var wg sync.WaitGroup
			wg.Go(func() { symbolNames(t, ctx, c, "OnTopic") })
			writeFile(t, shapes, strings.Replace(string(data), "TotalArea sums the areas", "TotalArea totals the areas", 1))
			wg.Wait()
			if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea totals") {
				t.Errorf("hover after a change made while a call ran = %q", h)
			}
		})
	}
}

// TestPollDescriptorBound builds a tree of 20,000 files in 2,000
// directories and expects the poller to see a change deep in it while the
// process holds no more descriptors than before plus a small constant.
func TestPollDescriptorBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	root := t.TempDir()
	const dirs, perDir = 2000, 10
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d/100), fmt.Sprintf("p%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte("package p\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := openFDs(t)
	p := newPoller(root)
	defer p.close()
	peak := 0
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			peak = max(peak, openFDs(t))
		}
	}()
	target := filepath.Join(root, "d19", "p1999", "f9.go")
	if err := os.WriteFile(target, []byte("package p // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The next barrier sees it.
	var found bool
	evs, _ := p.drain()
	for _, ev := range evs {
		found = found || ev.path == target
	}
	close(stop)
	<-done
	if !found {
		t.Errorf("the change to %s was not seen", target)
	}
	// The poller holds one descriptor at a time; the counting itself one
	// more.
	const bound = 4
	if peak-before > bound {
		t.Errorf("open descriptors rose from %d to %d while scanning 20,000 files; want at most %d more", before, peak, bound)
	}
	t.Logf("descriptors: %d before, %d at most while scanning %d files in %d directories", before, peak, dirs*perDir, dirs)
}

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestWatchFallsBackToPoll runs out of inotify watches under "auto": the
// watcher switches to the poller, and a change made after is seen.
func TestWatchFallsBackToPoll(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify is Linux only")
	}
	old := maxWatches
	// The root and one more; the example has four packages. Restored
	// after the client's Close, which runs first.
	maxWatches = 2
	t.Cleanup(func() { maxWatches = old })
	root := exampleRoot(t)
	c := startWith(t, Options{Root: root, Watch: "auto"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	<-c.watch.ready
	c.watch.mu.Lock()
	kind := fsKind(c.watch.fs)
	c.watch.mu.Unlock()
	if kind != "poll" {
		t.Fatalf("the watcher is %s after running out of watches, want poll", kind)
	}
	report := FileURI(filepath.Join(root, "report", "report.go"))
	shapes := filepath.Join(root, "shapes", "shapes.go")
	data, _ := os.ReadFile(shapes)
	writeFile(t, shapes, strings.Replace(string(data), "TotalArea sums the areas", "TotalArea adds up the areas", 1))
	if h := hoverText(t, ctx, c, report, 11, 70); !strings.Contains(h, "TotalArea adds up") {
		t.Errorf("hover after an external edit, past the watch limit = %q", h)
	}
}
