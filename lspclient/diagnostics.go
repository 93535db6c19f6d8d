package lspclient

import (
	"encoding/json"
	"sync"

	"go.lsp.dev/protocol"
)

// diagnosticStore keeps the diagnostics gopls last published for each URI.
// gopls publishes only when a file's diagnostics change, so an absent URI
// means "none".
type diagnosticStore struct {
	mu    sync.Mutex
	byURI map[string]publishedDiagnostics
	gen   uint64 // counts resets: which gopls the diagnostics came from
}

type publishedDiagnostics struct {
	version     int32
	diagnostics []protocol.Diagnostic
}

func (s *diagnosticStore) init() { s.byURI = make(map[string]publishedDiagnostics) }

// reset forgets what a gopls that has ended published; its replacement
// publishes afresh.
func (s *diagnosticStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.byURI)
	s.gen++
}

func (s *diagnosticStore) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// snapshot returns a copy of the store and its generation.
func (s *diagnosticStore) snapshot() (map[string][]protocol.Diagnostic, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]protocol.Diagnostic, len(s.byURI))
	for uri, d := range s.byURI {
		out[uri] = d.diagnostics
	}
	return out, s.gen
}

// publish stores a textDocument/publishDiagnostics and returns what it
// said, ok false if it could not be read.
func (s *diagnosticStore) publish(params json.RawMessage) (uri string, diags []protocol.Diagnostic, ok bool) {
	var p struct {
		URI         string                `json:"uri"`
		Version     int32                 `json:"version"`
		Diagnostics []protocol.Diagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(p.Diagnostics) == 0 {
		delete(s.byURI, p.URI)
	} else {
		s.byURI[p.URI] = publishedDiagnostics{version: p.Version, diagnostics: p.Diagnostics}
	}
	return p.URI, p.Diagnostics, true
}

// PublishedDiagnostics returns the diagnostics gopls last published, by
// URI, leaving out URIs whose last publication was empty. They are current
// only after a barrier such as [Client.DiagnoseWorkspace].
//
// After a restart of gopls the store starts empty and fills as the new gopls
// publishes; [Client.WorkspaceDiagnostics] never mixes the two.
func (c *Client) PublishedDiagnostics() map[string][]protocol.Diagnostic {
	out, _ := c.diags.snapshot()
	return out
}
