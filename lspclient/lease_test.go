package lspclient

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
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
