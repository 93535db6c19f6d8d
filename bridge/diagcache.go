package bridge

import (
	"sync"

	"go.lsp.dev/protocol"
)

// diagCache keeps, for one modification generation of gopls (see
// lspclient.Client.Generation), what go_diagnostics asked gopls: each
// file's diagnostics and each diagnostic's quick fixes. gopls answers the
// same while the generation stands, so a repeated call asks it nothing;
// any change gopls is told of (a document, a file on disk, a new gopls)
// moves the generation, and the first call after it starts afresh.
type diagCache struct {
	mu    sync.Mutex
	gen   uint64
	files map[string][]protocol.Diagnostic // pulled, by URI
	fixes map[fixKey][]Fix
}

// fixKey names one diagnostic of one file.
type fixKey struct {
	uri     string
	rng     protocol.Range
	source  string
	message string
}

func keyOf(uri string, d protocol.Diagnostic) fixKey {
	return fixKey{uri: uri, rng: d.Range, source: d.Source, message: d.Message}
}

// Bounds: past them the cache starts afresh.
const (
	maxCachedDiagFiles = 256
	maxCachedFixes     = 4096
)

// at makes the cache hold generation gen, dropping an older one. c.mu is
// held.
func (c *diagCache) at(gen uint64) {
	if c.gen == gen && c.files != nil {
		return
	}
	c.gen = gen
	c.files = make(map[string][]protocol.Diagnostic)
	c.fixes = make(map[fixKey][]Fix)
}

// diagnostics returns the diagnostics of uri pulled at gen, if kept.
func (c *diagCache) diagnostics(gen uint64, uri string) ([]protocol.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(gen)
	d, ok := c.files[uri]
	return d, ok
}

// fixesOf returns the fixes of a diagnostic of uri found at gen, if kept.
func (c *diagCache) fixesOf(gen uint64, uri string, d protocol.Diagnostic) ([]Fix, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(gen)
	f, ok := c.fixes[keyOf(uri, d)]
	return f, ok
}

// keep records what was asked at gen, unless gopls was told of a change
// since (changed): answers computed across a change belong to neither
// generation.
func (c *diagCache) keep(gen uint64, changed bool, files map[string][]protocol.Diagnostic, fixes map[fixKey][]Fix) {
	if changed {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at(gen)
	if len(c.files)+len(files) > maxCachedDiagFiles || len(c.fixes)+len(fixes) > maxCachedFixes {
		c.files = make(map[string][]protocol.Diagnostic)
		c.fixes = make(map[fixKey][]Fix)
	}
	for uri, d := range files {
		c.files[uri] = d
	}
	for k, f := range fixes {
		c.fixes[k] = f
	}
}
