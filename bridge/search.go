package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	Total     int            `json:"total" jsonschema:"number of symbols gopls found (it stops at 100)"`
	Truncated bool           `json:"truncated,omitempty" jsonschema:"set when fewer than total are listed"`
	Files     []FileCount    `json:"files,omitempty" jsonschema:"matches per file, given when the list is truncated"`
	Symbols   []SearchSymbol `json:"symbols" jsonschema:"the workspace's best matches first, then those of dependencies"`
}

// SearchSymbol is one symbol found.
type SearchSymbol struct {
	Name      string `json:"name" jsonschema:"the symbol, qualified by its type for fields and methods"`
	Kind      string `json:"kind" jsonschema:"func, method, type, struct, interface, field, var, const, ..."`
	Package   string `json:"package,omitempty" jsonschema:"import path of the declaring package"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Text      string `json:"text,omitempty" jsonschema:"the declaring source line (detailed only)"`
}

// Render implements mcp.Renderer: a count line, then each file's path
// followed by its symbols as line:character: kind name.
func (o *SearchOutput) Render() string {
	if o.Total == 0 {
		return "no symbols found"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", plural(o.Total, "symbol"))
	if o.Truncated {
		fmt.Fprintf(&b, " (%d listed; raise limit to see more)", len(o.Symbols))
	}
	b.WriteString("\n")
	// Grouped by file, so that each path is written once: the files in
	// the order of their best match, each file's symbols best first.
	listed := map[string]int{}
	var files []string
	byFile := map[string][]int{} // indexes into o.Symbols
	for i, s := range o.Symbols {
		if listed[s.File] == 0 {
			files = append(files, s.File)
		}
		listed[s.File]++
		byFile[s.File] = append(byFile[s.File], i)
	}
	var num [20]byte
	for _, f := range files {
		b.WriteString(f)
		b.WriteByte('\n')
		for _, i := range byFile[f] {
			s := &o.Symbols[i]
			b.Write(strconv.AppendInt(num[:0], int64(s.Line), 10))
			b.WriteByte(':')
			b.Write(strconv.AppendInt(num[:0], int64(s.Character), 10))
			b.WriteString(": ")
			b.WriteString(s.Kind)
			b.WriteByte(' ')
			b.WriteString(s.Name)
			if s.Text != "" {
				b.WriteString(": ")
				b.WriteString(s.Text)
			}
			b.WriteByte('\n')
		}
	}
	if o.Truncated {
		renderMore(&b, o.Files, listed, 0)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (b *Bridge) addSearch(s *mcp.Server) error {
	return mcp.AddTool(s, mcp.Tool{
		Name:        "go_search",
		Title:       "Search Go symbols",
		Description: "Find declarations by fuzzy name in the workspace and its dependencies, with kind and position. Use it instead of grep.",
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
	out := &SearchOutput{Total: len(syms), Symbols: []SearchSymbol{}}
	lines := b.newLineCache()
	var counts fileCounts
	for _, s := range syms {
		file := b.displayURI(string(s.Location.URI))
		counts.add(file)
		if len(out.Symbols) == limit {
			out.Truncated = true
			continue
		}
		start := s.Location.Range.Start
		sym := SearchSymbol{
			Name:      s.Name,
			Kind:      symbolKind(s.Kind),
			Package:   s.ContainerName,
			File:      file,
			Line:      int(start.Line),
			Character: int(start.Character),
		}
		if in.Detailed {
			sym.Text = lines.line(string(s.Location.URI), sym.Line)
		}
		out.Symbols = append(out.Symbols, sym)
	}
	if out.Truncated {
		out.Files = counts
	}
	return out, nil
}
