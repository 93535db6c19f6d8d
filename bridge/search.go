package bridge

import (
	"context"
	"errors"
	"strings"

	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultSearchLimit = 30

// SearchInput is the input of go_search.
type SearchInput struct {
	Query    string `json:"query" jsonschema:"fuzzy name, e.g. Handler or http.Serve"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 30"`
	Detailed bool   `json:"detailed,omitempty" jsonschema:"add source lines"`
}

// SearchOutput is the result of go_search.
type SearchOutput struct {
	Total     int    `json:"total,omitempty" jsonschema:"number of symbols gopls found (it stops at 100), when fewer are listed"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Symbols   Places `json:"symbols" jsonschema:"by file, as line:character: kind name; the workspace's best matches first, then those of dependencies"`
	More      Counts `json:"more,omitzero" jsonschema:"by file, how many are beyond the limit, not listed"`

	found int // what Total says, listed or not
}

// Render implements mcp.Renderer: a count line, then each file's path
// followed by its symbols as line:character: kind name.
func (o *SearchOutput) Render() string {
	if o.found == 0 {
		return "no symbols found"
	}
	var b strings.Builder
	b.WriteString(plural(o.found, "symbol"))
	if o.Truncated {
		b.WriteString(" (list truncated; raise limit to see more)")
	}
	b.WriteString("\n")
	renderPlaces(&b, &o.Symbols, &o.More)
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addSearch(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_search",
		Title:       "Search Go symbols",
		Description: "Find a symbol by name: fuzzy search for declarations (functions, types, methods, fields, constants) in the workspace, with file and line. Use it instead of grep to locate code.",
		Annotations: readOnly(),
		Narrow:      "narrow the call: pass a smaller limit or a more specific query, and leave detailed out",
	}, b.search)
}

// symbolInfo is one symbol of gopls's answer to workspace/symbol.
type symbolInfo struct {
	Name          string            `json:"name"`
	Kind          int               `json:"kind"`
	ContainerName string            `json:"containerName"`
	Location      protocol.Location `json:"location"`
}

func (b *Bridge) search(ctx context.Context, in *SearchInput) (*SearchOutput, error) {
	// Symbols of packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, errors.New("query is empty; pass part of a symbol name, e.g. \"Handler\"")
	}
	limit, err := limitOr(in.Limit, defaultSearchLimit)
	if err != nil {
		return nil, err
	}
	gen := b.client.Generation()
	found, ok := b.searches.get(gen, query)
	if !ok {
		if err := b.client.Call(ctx, "workspace/symbol", map[string]any{"query": query}, &found); err != nil {
			return nil, goplsError(err)
		}
		b.searches.put(gen, b.client.Changed(gen), query, found)
	}
	// found is shared with later calls: filtered into a new slice.
	syms := make([]symbolInfo, 0, len(found))
	for _, s := range found {
		if !b.foreign(ctx, string(s.Location.URI)) {
			syms = append(syms, s)
		}
	}
	out := &SearchOutput{found: len(syms)}
	lines := b.newLineCache()
	list := newPlaceList(limit)
	for _, s := range syms {
		uri := string(s.Location.URI)
		list.add(b.displayURI(uri), func() string {
			start := s.Location.Range.Start
			text := symbolKind(s.Kind) + " " + s.Name
			if in.Detailed {
				if src := lines.line(uri, int(start.Line)); src != "" {
					text += ": " + src
				}
			}
			return place(int(start.Line), int(start.Character), text)
		})
	}
	out.Symbols, out.More, out.Truncated = list.files, list.more, list.truncated()
	if out.Truncated {
		out.Total = out.found
	}
	return out, nil
}
