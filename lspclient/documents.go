package lspclient

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// documents are the buffers open in gopls, with the text and version last
// sent for each.
type documents struct {
	mu   sync.Mutex
	open map[string]*document
}

type document struct {
	version int32
	text    string
}

func (d *documents) init() { d.open = make(map[string]*document) }

// Sync makes gopls see text as the content of the document uri: it opens
// the document, or changes it if its text differs from what gopls has. It
// returns the version gopls now holds.
//
// The client's record of open documents, not the delivery to one gopls
// process, is what counts: a gopls that is being restarted, or that fails
// while receiving the text, gets every open document with its current text
// when its replacement comes up, before any request reaches it.
func (c *Client) Sync(ctx context.Context, uri, text string) (int32, error) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	if _, err := c.watch(); errors.Is(err, ErrClosed) {
		return 0, err
	}
	doc, ok := c.docs.open[uri]
	if !ok {
		doc = &document{version: 1, text: text}
		c.docs.open[uri] = doc
		c.sendDocument("textDocument/didOpen", doc.openParams(uri))
		return doc.version, nil
	}
	if doc.text == text {
		return doc.version, nil
	}
	doc.version++
	doc.text = text
	c.sendDocument("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": doc.version},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	return doc.version, nil
}

// CloseDocument closes uri in gopls, which then reads the file from disk
// again. Closing a document that is not open does nothing.
func (c *Client) CloseDocument(ctx context.Context, uri string) error {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	if _, ok := c.docs.open[uri]; !ok {
		return nil
	}
	delete(c.docs.open, uri)
	c.sendDocument("textDocument/didClose", map[string]any{
		"textDocument": map[string]any{"uri": uri},
	})
	return nil
}

// sendDocument sends a document notification to the running gopls, if
// there is one. The caller holds docs.mu. A failed write has already
// failed the process, which the supervisor replaces.
func (c *Client) sendDocument(method string, params any) {
	if p := c.live(); p != nil {
		if err := p.notify(method, params); err != nil && p.ctx.Err() == nil {
			p.fail(err)
		}
	}
}

// replay opens every document in a new gopls, at the version and with the
// text the client holds. The caller holds docs.mu.
func (c *Client) replay(p *process) {
	uris := make([]string, 0, len(c.docs.open))
	for uri := range c.docs.open {
		uris = append(uris, uri)
	}
	slices.Sort(uris)
	for _, uri := range uris {
		if err := p.notify("textDocument/didOpen", c.docs.open[uri].openParams(uri)); err != nil {
			// The process has failed; the next one gets them all.
			return
		}
	}
	if len(uris) > 0 {
		c.log.Debug("reopened documents in gopls", "pid", p.pid, "count", len(uris))
	}
}

func (d *document) openParams(uri string) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": languageID(uri), "version": d.version, "text": d.text},
	}
}

// Document returns the text and version gopls holds for an open document.
func (c *Client) Document(uri string) (text string, version int32, ok bool) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	doc, ok := c.docs.open[uri]
	if !ok {
		return "", 0, false
	}
	return doc.text, doc.version, true
}

// OpenDocuments returns the URIs of the open documents.
func (c *Client) OpenDocuments() []string {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	uris := make([]string, 0, len(c.docs.open))
	for uri := range c.docs.open {
		uris = append(uris, uri)
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
