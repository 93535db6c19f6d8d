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
	for {
		if _, err := c.state(); errors.Is(err, ErrClosed) {
			return nil, err
		}
		c.docs.mu.Lock()
		doc, ok := c.docs.open[uri]
		switch {
		case !ok:
			doc = &document{version: 1, text: text, overlay: overlay, holders: 1}
			c.docs.open[uri] = doc
			c.sendDocument("textDocument/didOpen", doc.openParams(uri))
			c.docs.mu.Unlock()
			c.watchDocument(uri, overlay)
			return &Lease{c: c, URI: uri, Text: text, Version: 1}, nil
		case doc.text == text:
			// The same text: share it. Naming the file's disk content
			// makes it disk-backed again, and the reverse.
			doc.holders++
			doc.overlay = overlay
			l := &Lease{c: c, URI: uri, Text: text, Version: doc.version}
			c.docs.mu.Unlock()
			return l, nil
		case doc.holders == 0:
			next := doc.version + 1
			doc.version, doc.text, doc.overlay, doc.stale, doc.holders = next, text, overlay, false, 1
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

// HoldOpen holds uri with whatever text gopls has for it, if it is open.
// It never waits.
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
		if doc.stale {
			// It changed on disk meanwhile: let gopls read the disk.
			c.closeLocked(l.URI)
		}
		c.docs.wake()
	})
}
