package lspclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A Lease keeps one text of a document in gopls while a call uses it, so
// that the call's answer never mixes two versions of the file. Calls that
// want the same text share the document; a call that wants another text
// waits until every lease on the current one is released.
type Lease struct {
	c    *Client
	once sync.Once
	// URI is the document held.
	URI string
	// Text and Version are what gopls holds while the lease lasts.
	Text    string
	Version int32
}

// Hold makes gopls hold text as the content of uri until the returned
// lease is released: it opens the document, or changes it once no other
// call holds a different text. overlay says whether text is something
// other than the file on disk (an unsaved edit or a snippet), which
// changes on disk must leave alone.
//
// A call that holds leases must not wait for another text of a document
// it holds itself; calls that hold several should take them in a fixed
// order (by URI) to avoid waiting on each other in a cycle.
func (c *Client) Hold(ctx context.Context, uri, text string, overlay bool) (*Lease, error) {
	return c.hold(ctx, uri, text, holdMode{overlay: overlay, open: true})
}

// HoldDisk is [Client.Hold] for text just read from the file on disk,
// which it does not open in gopls while the call runs, unless it is open
// already: gopls reads the file itself, as it does every file no editor
// has open. An open document is what gopls runs its analyzers on, for its
// package and every package that package imports, which on a workspace
// gopls has not cached yet competes with the call for the machine. When
// the last holder lets go the document is opened, as Hold opens it
// before: gopls then keeps the package type-checked for later calls, and
// the analysis runs after the answer, not before it. A call that wants
// the analyzers' diagnostics opens the file at once with [Lease.Open].
//
// The lease keeps the text the call read: if the file changes on disk
// while the call holds it, gopls is given the text held, as an open
// document, before it hears of the change, and reads the disk again once
// the last holder lets go.
func (c *Client) HoldDisk(ctx context.Context, uri, text string) (*Lease, error) {
	return c.hold(ctx, uri, text, holdMode{disk: true})
}

// HoldBriefly is [Client.Hold] for text just read from a file that is
// not in the build gopls makes for the workspace: one for another GOOS or
// GOARCH, or left out by its build tags. gopls answers about such a file
// only while it is open, in a build (view) it makes for the file, and it
// keeps that build, with every package of it type-checked and diagnosed,
// for as long as the file stays open: its errors ("undefined: X
// [freebsd,386]") join the workspace's published diagnostics, and its
// memory gopls's. So the document is opened for the call and closed when
// its last holder lets go, which makes gopls drop that build, instead of
// being kept open as files of the workspace's build are (see maxKept).
func (c *Client) HoldBriefly(ctx context.Context, uri, text string) (*Lease, error) {
	return c.hold(ctx, uri, text, holdMode{open: true, brief: true})
}

// holdMode says how a text is held: overlay, whether it is other than the
// file on disk; open, whether gopls opens it while the call holds it (else
// when the call lets go: see HoldDisk); brief, whether it is closed then
// (see HoldBriefly); disk, whether the call just read it from the file
// (HoldDisk: see document.disk).
type holdMode struct{ overlay, open, brief, disk bool }

func (c *Client) hold(ctx context.Context, uri, text string, m holdMode) (*Lease, error) {
	overlay, open := m.overlay, m.open
	for {
		if _, err := c.state(); errors.Is(err, ErrClosed) {
			return nil, err
		}
		c.docs.mu.Lock()
		doc, ok := c.docs.open[uri]
		switch {
		case !ok:
			doc = &document{version: 1, text: text, overlay: overlay, holders: 1, brief: m.brief, disk: m.disk && !overlay}
			c.docs.open[uri] = doc
			if open {
				c.openLocked(uri, doc)
			}
			c.docs.mu.Unlock()
			c.watchDocument(uri, overlay)
			return &Lease{c: c, URI: uri, Text: text, Version: 1}, nil
		case doc.text == text:
			// The same text: share it. Naming the file's disk content
			// makes it disk-backed again, and the reverse.
			doc.holders++
			doc.overlay = overlay
			doc.brief = m.brief
			switch {
			case overlay:
				doc.disk = false
			case m.disk:
				doc.disk = true
			}
			if open && !doc.sent {
				c.openLocked(uri, doc)
			}
			l := &Lease{c: c, URI: uri, Text: text, Version: doc.version}
			c.docs.mu.Unlock()
			return l, nil
		case doc.holders == 0:
			// Only documents open in gopls outlive their holders.
			next := doc.version + 1
			doc.version, doc.text, doc.overlay, doc.stale, doc.holders, doc.brief, doc.disk = next, text, overlay, false, 1, m.brief, m.disk && !overlay
			c.sendDocument("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": next},
				"contentChanges": []any{map[string]any{"text": text}},
			})
			c.docs.mu.Unlock()
			return &Lease{c: c, URI: uri, Text: text, Version: next}, nil
		}
		idle := c.docs.idle
		c.docs.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for other calls to finish with %s: %w", uri, context.Cause(ctx))
		}
	}
}

// Open makes gopls hold the lease's text as an open document now, if it
// does not already (see [Client.HoldDisk]), so that gopls runs its
// analyzers on the file's package before the call asks for them. It
// reports whether gopls now holds that text open in the workspace's
// build (not briefly, see [Client.HoldBriefly]): then gopls's full
// diagnosis of the workspace ([Client.DiagnoseFiles]) covers the file as
// a pull of its diagnostics does, its analyzers' findings included.
func (l *Lease) Open() bool {
	c := l.c
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	doc, ok := c.docs.open[l.URI]
	if !ok || doc.text != l.Text {
		return false
	}
	if !doc.sent {
		c.openLocked(l.URI, doc)
	}
	return !doc.brief
}

// HoldOpen holds uri with whatever text gopls has for it, if it is open or
// held by another call. It never waits.
func (c *Client) HoldOpen(uri string) (*Lease, bool) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	doc, ok := c.docs.open[uri]
	if !ok {
		return nil, false
	}
	doc.holders++
	return &Lease{c: c, URI: uri, Text: doc.text, Version: doc.version}, true
}

// Release lets go of the lease. Releasing twice does nothing.
func (l *Lease) Release() {
	l.once.Do(func() {
		c := l.c
		c.docs.mu.Lock()
		defer c.docs.mu.Unlock()
		doc, ok := c.docs.open[l.URI]
		if !ok || doc.holders == 0 {
			return
		}
		doc.holders--
		if doc.holders > 0 {
			return
		}
		switch {
		case doc.stale, doc.brief && !doc.overlay:
			// It changed on disk meanwhile: let gopls read the disk. Or it
			// is outside the workspace's build: let gopls drop the build
			// it made for it (see HoldBriefly).
			c.closeLocked(l.URI)
			c.docs.wake()
			return
		case !doc.sent:
			// The call has its answer: open the document now, as Hold
			// does before, so that later calls find its package
			// type-checked and kept by gopls (see HoldDisk).
			c.openLocked(l.URI, doc)
		}
		if doc.sent && !doc.stale && !doc.overlay {
			c.keepLocked(doc)
		}
		c.docs.wake()
	})
}
