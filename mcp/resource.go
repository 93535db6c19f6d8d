package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"time"
)

// A Resource describes a fixed resource to clients.
type Resource struct {
	// URI identifies the resource, e.g. "goplsmcp://keywords".
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Icons       []Icon
	// TTL is how long a client of the modern revisions may take what
	// it read as fresh (its ttlMs); zero means stale at once.
	TTL time.Duration
}

// A ResourceHandler returns the current text of a resource. An *Error
// chooses the code the client sees; any other error becomes -32603.
type ResourceHandler func(ctx context.Context) (string, error)

type serverResource struct {
	def  Resource
	read ResourceHandler
}

// AddResource registers a resource whose contents h produces on each read.
func AddResource(s *Server, r Resource, h ResourceHandler) error {
	if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
		return fmt.Errorf("resource %q: URI must be absolute", r.URI)
	}
	if r.Name == "" || h == nil {
		return fmt.Errorf("resource %q: a name and a handler are required", r.URI)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.resIndex[r.URI]; dup {
		return fmt.Errorf("resource %q registered twice", r.URI)
	}
	sr := &serverResource{def: r, read: h}
	s.resources = append(s.resources, sr)
	s.resIndex[r.URI] = sr
	return nil
}

type resourceJSON struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

func listResources(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	ss.srv.mu.RLock()
	all := slices.Clone(ss.srv.resources)
	ss.srv.mu.RUnlock()
	start, end, next, err := ss.page(params, "resources", len(all))
	if err != nil {
		return nil, err
	}
	list := make([]resourceJSON, 0, end-start)
	for _, r := range all[start:end] {
		j := resourceJSON{URI: r.def.URI, Name: r.def.Name, Description: r.def.Description, MIMEType: r.def.MIMEType}
		if ss.atLeast(ctx, version20250618) {
			j.Title = r.def.Title
		}
		if ss.atLeast(ctx, version20251125) {
			j.Icons = r.def.Icons
		}
		list = append(list, j)
	}
	return &struct {
		Resources  []resourceJSON `json:"resources"`
		NextCursor string         `json:"nextCursor,omitempty"`
	}{list, next}, nil
}

// listResourceTemplates answers that there are none: every resource is
// fixed. A client that lists templates gets an empty list, not an error.
func listResourceTemplates(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	if _, _, _, err := ss.page(params, "resources/templates", 0); err != nil {
		return nil, err
	}
	return map[string]any{"resourceTemplates": []any{}}, nil
}

func readResource(ctx context.Context, ss *session, params json.RawMessage) (any, error) {
	var p struct {
		URI json.RawMessage `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	uri, ok := stringValue(p.URI)
	if !ok {
		return nil, InvalidParams("uri must be a string")
	}
	ss.srv.mu.RLock()
	r := ss.srv.resIndex[uri]
	ss.srv.mu.RUnlock()
	if r == nil {
		return nil, InvalidParams("unknown resource; resources/list names them")
	}
	text, err := r.read(ctx)
	if err != nil {
		return nil, err
	}
	type contents struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
	}
	return map[string]any{"contents": []contents{{URI: uri, MIMEType: r.def.MIMEType, Text: text}}}, nil
}
