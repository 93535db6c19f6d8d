package lspclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHoldSerialisesChanges checks that a call wanting another text of a
// held document waits for the holder, while calls wanting the same text
// share it.
func TestHoldSerialisesChanges(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uri := FileURI(filepath.Join(root, "scratch.go"))

	a, err := c.Hold(ctx, uri, "package main // v1\n", true)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := c.Hold(ctx, uri, "package main // v1\n", true)
	if err != nil || shared.Version != a.Version {
		t.Fatalf("holding the same text = %v, %v; want version %d shared", shared, err, a.Version)
	}

	got := make(chan *Lease, 1)
	go func() {
		l, err := c.Hold(ctx, uri, "package main // v2\n", true)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	// The change must not happen while v1 is held.
	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	defer stop()
	if _, err := c.Hold(short, uri, "package main // v3\n", true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Hold of a third text while v1 is held = %v, want it to wait until its deadline", err)
	}
	if text, _, _ := c.Document(uri); text != "package main // v1\n" {
		t.Fatalf("text changed to %q while held", text)
	}
	a.Release()
	a.Release() // twice is harmless
	if text, _, _ := c.Document(uri); text != "package main // v1\n" {
		t.Fatalf("text changed to %q while still held once", text)
	}
	shared.Release()
	var b *Lease
	select {
	case b = <-got:
	case <-ctx.Done():
		t.Fatal("the waiting Hold never got the document")
	}
	if b.Version != a.Version+1 || b.Text != "package main // v2\n" {
		t.Errorf("after release: version %d text %q, want version %d with v2", b.Version, b.Text, a.Version+1)
	}
	if cur, ok := c.HoldOpen(uri); !ok || cur.Text != b.Text {
		t.Errorf("HoldOpen = %v, %v; want the held v2", cur, ok)
	} else {
		cur.Release()
	}
	b.Release()
	if closed, err := c.CloseDocument(ctx, uri); !closed || err != nil {
		t.Errorf("CloseDocument = %v, %v", closed, err)
	}
	if _, ok := c.HoldOpen(uri); ok {
		t.Error("HoldOpen found a closed document")
	}
}

// TestHoldDiskPins checks that a file held as read from disk is not opened
// in gopls while the call runs, gopls answering from the disk; that a
// change on disk while it is held gives gopls the text the call read,
// until the call lets go; and that the file is opened when the call is
// done with it, or at once by Open.
func TestHoldDiskPins(t *testing.T) {
	root := exampleRoot(t)
	c := startClient(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report := filepath.Join(root, "report", "report.go")
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	uri := FileURI(report)
	// summaryLine asks gopls on which line Summary is declared.
	summaryLine := func() int {
		t.Helper()
		var syms []struct {
			Name  string `json:"name"`
			Range struct {
				Start struct {
					Line int `json:"line"`
				} `json:"start"`
			} `json:"range"`
		}
		if err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms); err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if s.Name == "Summary" {
				return s.Range.Start.Line
			}
		}
		t.Fatalf("gopls lists no Summary in %v", syms)
		return -1
	}
	before := summaryLine()

	l, err := c.HoldDisk(ctx, uri, string(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, open := c.Document(uri); open {
		t.Fatal("HoldDisk opened the document in gopls")
	}
	shared, ok := c.HoldOpen(uri)
	if !ok || shared.Text != string(data) {
		t.Fatalf("HoldOpen of a held file = %v, %v; want the held text shared", shared, ok)
	}
	shared.Release()

	// Two lines more on disk move Summary down, but not for the call
	// that holds the text it read.
	writeFile(t, report, "// one\n// two\n"+string(data))
	if got := summaryLine(); got != before {
		t.Errorf("while held, gopls puts Summary on line %d, want %d, as in the text held", got, before)
	}
	if text, _, open := c.Document(uri); !open || text != string(data) {
		t.Errorf("after a change on disk, the held file is open %v with the text held %v; want both", open, text == string(data))
	}
	l.Release()
	if _, _, open := c.Document(uri); open {
		t.Error("the file is still open in gopls after its holder let go")
	}
	if got := summaryLine(); got != before+2 {
		t.Errorf("after release, gopls puts Summary on line %d, want %d, as on disk", got, before+2)
	}

	// A call that is done with a file it read opens it, so that later
	// calls find its package kept by gopls; Open opens it at once.
	now, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	l, err = c.HoldDisk(ctx, uri, string(now))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, open := c.Document(uri); open {
		t.Error("HoldDisk opened the document in gopls before its call was done")
	}
	l.Open()
	if text, _, open := c.Document(uri); !open || text != string(now) {
		t.Errorf("after Open: open %v, text as on disk %v; want both", open, text == string(now))
	}
	l.Release()
	if _, err := c.CloseDocument(ctx, uri); err != nil {
		t.Fatal(err)
	}
	l, err = c.HoldDisk(ctx, uri, string(now))
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if text, _, open := c.Document(uri); !open || text != string(now) {
		t.Errorf("after release: open %v, text as on disk %v; want both", open, text == string(now))
	}
	if !c.known(uri) || len(c.OpenDocuments()) != 1 {
		t.Errorf("open documents = %v, want the one opened", c.OpenDocuments())
	}
}

// TestKeptOpenIsBounded reads more files than gopls keeps open: the most
// recently released stay open, the others are closed, and an unsaved
// buffer is never closed behind its holder's back.
func TestKeptOpenIsBounded(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/kept\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = maxKept + 8
	var uris []string
	for i := range n {
		path := filepath.Join(root, fmt.Sprintf("f%02d.go", i))
		text := fmt.Sprintf("package kept\n\nfunc F%d() {}\n", i)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		uris = append(uris, FileURI(path))
	}
	c := startWith(t, Options{Root: root})
	ctx := context.Background()
	unsaved, err := c.Hold(ctx, FileURI(filepath.Join(root, "unsaved.go")), "package kept\n\nfunc Unsaved() {}\n", true)
	if err != nil {
		t.Fatal(err)
	}
	unsaved.Release()
	for i, uri := range uris {
		l, err := c.HoldDisk(ctx, uri, fmt.Sprintf("package kept\n\nfunc F%d() {}\n", i))
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
	}
	open := c.OpenDocuments()
	slices.Sort(open)
	want := append([]string{unsaved.URI}, uris[n-maxKept:]...)
	slices.Sort(want)
	if diff := cmp.Diff(want, open); diff != "" {
		t.Errorf("open documents after reading %d files (-want +got):\n%s", n, diff)
	}

	// A daemon without sessions closes every kept file, never a held one
	// nor an unsaved buffer.
	held, err := c.HoldDisk(ctx, uris[0], "package kept\n\nfunc F0() {}\n")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if got := c.CloseKept(); got != maxKept {
		t.Errorf("CloseKept closed %d documents, want %d", got, maxKept)
	}
	if diff := cmp.Diff([]string{unsaved.URI}, c.OpenDocuments()); diff != "" {
		t.Errorf("open documents after CloseKept (-want +got):\n%s", diff)
	}
	if !c.known(uris[0]) {
		t.Errorf("CloseKept forgot %s, which a call holds", uris[0])
	}
}

// TestHeldBrieflyIsClosed: a file outside the workspace's build is open
// in gopls while calls hold it, and closed when the last lets go, so
// that gopls drops the build it made for it.
func TestHeldBrieflyIsClosed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/brief\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "only_freebsd.go")
	text := "package brief\n\nfunc Free() {}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startWith(t, Options{Root: root})
	ctx := context.Background()
	uri := FileURI(path)
	first, err := c.HoldBriefly(ctx, uri, text)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.HoldBriefly(ctx, uri, text)
	if err != nil {
		t.Fatal(err)
	}
	first.Release()
	if open := c.OpenDocuments(); !slices.Contains(open, uri) {
		t.Errorf("open documents while a call still holds %s: %v", uri, open)
	}
	second.Release()
	if open := c.OpenDocuments(); slices.Contains(open, uri) {
		t.Errorf("open documents once no call holds %s: %v; want it closed", uri, open)
	}
}
