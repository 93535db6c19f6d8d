package lspclient

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"sync"
)

// documents are the texts calls hold: the buffers open in gopls, with the
// text and version last sent for each, and the files held as read from
// disk that gopls reads itself (see [Client.HoldDisk]).
type documents struct {
	// mu guards the table. Notifications about the documents are queued
	// under it and written after it (see notes.go): it is never held
	// while anything is written to gopls.
	mu   sync.Mutex
	open map[string]*document
	// idle is closed, and replaced, whenever a document loses its last
	// holder, waking the calls that wait to change one.
	idle chan struct{}
	// releases counts the last-holder releases, to order kept documents.
	releases uint64
	// shields are the URIs of the workspace's special files, and overlay
	// the go command's overlay file that deletes them ("" until one is
	// found at a start of gopls; see special.go).
	shields map[string]bool
	overlay string
}

type document struct {
	version int32
	text    string
	// overlay is set when the text is not (necessarily) the file on disk:
	// an unsaved edit or a snippet. Changes on disk leave it alone.
	overlay bool
	// holders counts the leases on this text (see [Client.Hold]).
	holders int
	// sent is set once gopls has the document open. A file held as read
	// from disk is opened only when its last holder lets go (see
	// [Client.HoldDisk]).
	sent bool
	// stale is set when the file changed on disk while the document was
	// held; it is closed, so that gopls reads the disk, when the last
	// holder lets go.
	stale bool
	// released orders the documents kept open with no holder by when
	// their last holder let go (see keepLocked).
	released uint64
	// brief is set for a file outside the workspace's build (see
	// [Client.HoldBriefly]): it is closed, not kept, when its last holder
	// lets go.
	brief bool
	// disk is set when text is what a call just read from the file
	// (see [Client.HoldDisk]), and cleared when it changes otherwise: then
	// opening or closing the document changes nothing gopls answers (see
	// quietLocked).
	disk bool
}

// maxKept bounds the documents read from disk that stay open in gopls
// once no call holds them. Keeping a file open keeps its package
// type-checked and analysed, so the next question about it is answered
// warm; but gopls keeps every open file's package, and those it imports,
// checked and analysed for as long as it stays open, so an unbounded set
// grows gopls by every file a call ever read (300 distinct files of
// GOROOT/src: 2.0 GB against 0.6 GB for gopls mcp, which opens none). An
// agent works on a handful of files at a time; the least recently used
// beyond these are closed, and gopls reads them from disk again.
// Documents with unsaved text (overlays, snippets) are never closed here:
// they are a session's, until it closes them.
//
// Four, not more: gopls v0.23.0 keeps a closed file's package checked
// until the view is renewed anyway (renew.go), so what keeping more
// files open adds is mostly gopls's diagnosis and analysis of them. In
// two 6-minute soaks (four sessions, renewals 30 s apart) 16 kept files
// left gopls at 1.77× gopls mcp's RSS in the last minute and 4 at 1.62×,
// with the same p50 for every kind of call (BENCHMARKS.md, table 12).
const maxKept = 4

// kept reports whether the document is one kept open for speed: read
// from disk, open in gopls, held by no call (see maxKept and CloseKept).
func (d *document) kept() bool { return d.holders == 0 && d.sent && !d.overlay }

func (d *documents) init() {
	d.open = make(map[string]*document)
	d.idle = make(chan struct{})
}

// wake tells the waiting calls that a document became free. d.mu is held.
func (d *documents) wake() {
	close(d.idle)
	d.idle = make(chan struct{})
}

// Sync makes gopls see text as the content of the document uri: it opens
// the document, or changes it if its text differs from what gopls has. It
// returns the version gopls now holds. It waits while other calls hold a
// different text of the document (see [Client.Hold]).
//
// The client's record of open documents, not the delivery to one gopls
// process, is what counts: a gopls that is being restarted, or that fails
// while receiving the text, gets every open document with its current text
// when its replacement comes up, before any request reaches it.
func (c *Client) Sync(ctx context.Context, uri, text string) (int32, error) {
	l, err := c.Hold(ctx, uri, text, false)
	if err != nil {
		return 0, err
	}
	defer l.Release()
	return l.Version, nil
}

// CloseDocument closes uri in gopls, which then reads the file from disk
// again. It waits until no call holds the document. Closing a document
// that is not open does nothing; closed reports whether one was.
func (c *Client) CloseDocument(ctx context.Context, uri string) (closed bool, err error) {
	for {
		c.docs.mu.Lock()
		doc, ok := c.docs.open[uri]
		if !ok {
			c.docs.mu.Unlock()
			return false, nil
		}
		if doc.holders == 0 {
			c.closeLocked(uri)
			c.docs.mu.Unlock()
			return true, nil
		}
		idle := c.docs.idle
		c.docs.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// CloseKept closes in gopls every document read from disk that no call
// holds — those kept open for speed (see maxKept) — and returns how many
// it closed. Documents with unsaved text stay: they are their sessions'.
// A daemon whose last session has gone calls it, so that gopls drops the
// packages those files kept checked while it waits for a next session.
func (c *Client) CloseKept() int {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	n := 0
	for uri, d := range c.docs.open {
		if d.kept() {
			c.closeLocked(uri)
			n++
		}
	}
	return n
}

// openLocked opens doc in gopls with the text it holds. c.docs.mu is held.
func (c *Client) openLocked(uri string, doc *document) {
	doc.sent = true
	c.tellLocked("textDocument/didOpen", doc.openParams(uri), uri, doc)
}

// closeLocked forgets uri and tells gopls. c.docs.mu is held.
func (c *Client) closeLocked(uri string) {
	doc := c.docs.open[uri]
	delete(c.docs.open, uri)
	c.closedLocked(uri)
	c.tellLocked("textDocument/didClose", map[string]any{
		"textDocument": map[string]any{"uri": uri},
	}, uri, doc)
}

// tellLocked is sendDocument for opening or closing doc (nil if unknown),
// counted as a change of no answer when it is one (see quietLocked).
// c.docs.mu is held.
func (c *Client) tellLocked(method string, params any, uri string, doc *document) {
	c.notes.enqueue(method, params)
	if doc != nil && c.quietLocked(uri, doc) {
		c.modifiedQuietly()
	} else {
		c.modified()
	}
}

// quietLocked reports whether opening or closing doc leaves every answer
// of gopls as it was, so that the generation stays (see generation.go)
// and the answers kept by it with it: the text is the file's on disk
// (read by the call, not changed since: see document.disk and stale),
// and the file is in a package of gopls's own views, so that opening it
// makes no view for it and closing it drops none. Each file a call reads
// is opened when the call lets go and closed when four newer ones are
// kept (see maxKept), so counting these made every kept answer old after
// any call on another file, and the calls of four sessions never found
// one. What gopls keeps for open files still changes (see generation.go).
// c.docs.mu is held.
func (c *Client) quietLocked(uri string, doc *document) bool {
	if !doc.disk || doc.overlay || doc.brief || doc.stale {
		return false
	}
	path, err := URIPath(uri)
	return err == nil && c.watch.isPackageDir(filepath.Dir(path))
}

// keepLocked records that doc, read from disk and open in gopls, has lost
// its last holder, and closes the least recently released such documents
// beyond maxKept. c.docs.mu is held.
func (c *Client) keepLocked(doc *document) {
	c.docs.releases++
	doc.released = c.docs.releases
	var kept []string
	for uri, d := range c.docs.open {
		if d.kept() {
			kept = append(kept, uri)
		}
	}
	if len(kept) <= maxKept {
		return
	}
	slices.SortFunc(kept, func(a, b string) int {
		return cmp.Compare(c.docs.open[a].released, c.docs.open[b].released)
	})
	for _, uri := range kept[:len(kept)-maxKept] {
		c.closeLocked(uri)
	}
}

// sendDocument queues a document notification for gopls (see notes.go)
// and counts the change. The caller holds docs.mu, so that notifications
// are queued in the order of the changes they report; nothing is written
// to gopls under the lock. When no gopls runs, its replacement gets the
// document with the rest (see replayNotes).
func (c *Client) sendDocument(method string, params any) {
	c.notes.enqueue(method, params)
	c.modified()
}

// replayNotes opens every open document in a new gopls, at the version
// and with the text the client holds. The caller holds docs.mu.
func (c *Client) replayNotes() []note {
	uris := make([]string, 0, len(c.docs.open))
	for uri, doc := range c.docs.open {
		if doc.sent {
			uris = append(uris, uri)
		}
	}
	slices.Sort(uris)
	notes := make([]note, 0, len(uris))
	for _, uri := range uris {
		notes = append(notes, note{"textDocument/didOpen", c.docs.open[uri].openParams(uri)})
	}
	return notes
}

func (d *document) openParams(uri string) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": languageID(uri), "version": d.version, "text": d.text},
	}
}

// Document returns the text and version gopls holds for an open document;
// ok is false for a file gopls reads from disk.
func (c *Client) Document(uri string) (text string, version int32, ok bool) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	doc, ok := c.docs.open[uri]
	if !ok || !doc.sent {
		return "", 0, false
	}
	return doc.text, doc.version, true
}

// known reports whether uri is open in gopls or held by a call.
func (c *Client) known(uri string) bool {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	_, ok := c.docs.open[uri]
	return ok
}

// IsOverlay reports whether uri is open with text that is not the file on
// disk (an overlay or a snippet).
func (c *Client) IsOverlay(uri string) bool {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	doc, ok := c.docs.open[uri]
	return ok && doc.sent && doc.overlay
}

// OpenDocuments returns the URIs of the open documents.
func (c *Client) OpenDocuments() []string {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	uris := make([]string, 0, len(c.docs.open))
	for uri, doc := range c.docs.open {
		if doc.sent {
			uris = append(uris, uri)
		}
	}
	return uris
}

func languageID(uri string) string {
	switch {
	case hasSuffix(uri, ".mod"):
		return "go.mod"
	case hasSuffix(uri, ".work"):
		return "go.work"
	case hasSuffix(uri, ".sum"):
		return "go.sum"
	case hasSuffix(uri, ".tmpl"), hasSuffix(uri, ".gotmpl"):
		return "gotmpl"
	}
	return "go"
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
