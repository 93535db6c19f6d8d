package lspclient

import (
	"context"
	"fmt"
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
func (c *Client) Sync(ctx context.Context, uri, text string) (int32, error) {
	c.docs.mu.Lock()
	defer c.docs.mu.Unlock()
	doc, ok := c.docs.open[uri]
	if !ok {
		err := c.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": uri, "languageId": languageID(uri), "version": 1, "text": text},
		})
		if err != nil {
			return 0, fmt.Errorf("opening %s: %w", uri, err)
		}
		c.docs.open[uri] = &document{version: 1, text: text}
		return 1, nil
	}
	if doc.text == text {
		return doc.version, nil
	}
	next := doc.version + 1
	err := c.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": next},
		"contentChanges": []any{map[string]any{"text": text}},
	})
	if err != nil {
		return 0, fmt.Errorf("changing %s: %w", uri, err)
	}
	doc.version, doc.text = next, text
	return next, nil
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
	if err := c.Notify(ctx, "textDocument/didClose", map[string]any{
		"textDocument": map[string]any{"uri": uri},
	}); err != nil {
		return fmt.Errorf("closing %s: %w", uri, err)
	}
	return nil
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
