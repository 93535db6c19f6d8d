package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	iplace "github.com/goplsmcp/goplsmcp/bridge/internal/place"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

const defaultSearchLimit = 30

// maxWorkspaceSymbols is the most symbols gopls answers a search with.
const maxWorkspaceSymbols = 100

// SearchInput is the input of go_search.
type SearchInput struct {
	Query    string `json:"query" jsonschema:"fuzzy name, e.g. Handler or http.Serve"`
	Scope    string `json:"scope,omitempty" jsonschema:"workspace (default), or all: with dependencies and the standard library"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 30"`
	Detailed bool   `json:"detailed,omitempty" jsonschema:"add source lines"`
}

// SearchOutput is the result of go_search.
type SearchOutput struct {
	Total   int    `json:"total,omitempty" jsonschema:"number of symbols found in the scope, when fewer are listed"`
	Notes   Notes  `json:"notes,omitempty" jsonschema:"what the counts mean, as the text says them: what scope all would add, that the list is cut at limit, that gopls stopped at its 100 matches and how many of its last were left out, the symbols withheld"`
	Symbols Places `json:"symbols" jsonschema:"by file, as line:col: kind name; the workspace's best matches first, then those of dependencies; 1-based, byte columns, as go vet prints them"`
	More    Counts `json:"more,omitzero" jsonschema:"by file, how many are beyond the limit, not listed"`

	found int  // what Total says, listed or not
	all   bool // the scope is all
}

// searchNotes are the notes of a search: outside is how many symbols
// scope all would add, capped whether gopls cut its answer at its limit,
// unsettled how many of its last matches were left out for it,
// withheld how many are not shown because they are declared outside the
// root.
func searchNotes(outside int, truncated, capped bool, unsettled, withheld int, via string) Notes {
	var n Notes
	if outside > 0 {
		n.Add(fmt.Sprintf("scope: \"all\" adds %d from dependencies and the standard library", outside))
	}
	if truncated {
		n.Add(render.Truncated)
	}
	switch {
	case unsettled > 0:
		n.Add(fmt.Sprintf("gopls stops at its %d best matches, keeping a different few of the equally good last ones each time, so those %d are left out; a more specific query (a longer name, or Type.Method) finds them and more", maxWorkspaceSymbols, unsettled))
	case capped:
		n.Add(fmt.Sprintf("gopls stops at %d matches, so a more specific query may find more", maxWorkspaceSymbols))
	}
	if withheld > 0 {
		n.Add(fmt.Sprintf("%d withheld: declared outside the workspace root, reached through %s", withheld, via))
	}
	return n
}

// Render implements mcp.Renderer: a count line with the notes, then each
// file's path followed by its symbols as line:col: kind name.
func (o *SearchOutput) Render() string {
	var b strings.Builder
	switch {
	case o.found == 0 && o.all:
		b.WriteString("no symbols found")
	case o.found == 0:
		b.WriteString("no symbols in the workspace")
	default:
		b.WriteString(render.Plural(o.found, "symbol"))
		if !o.all {
			b.WriteString(" in the workspace")
		}
	}
	b.WriteString(o.Notes.Parens())
	b.WriteString("\n")
	render.WritePlaces(&b, &o.Symbols, &o.More)
	return strings.TrimSuffix(b.String(), "\n")
}

// searchTool is go_search's entry in the catalogue (see ToolSpec).
var searchTool = ToolSpec{
	Name:        "go_search",
	Title:       "Search Go symbols",
	Description: "Find a symbol by name: fuzzy search for declarations (functions, types, methods, fields, constants) in the workspace, with file and line; scope \"all\" adds dependencies and the standard library. Use instead of grep.",
	Narrow:      "narrow the call: pass a smaller limit or a more specific query, and leave detailed out",
	Instruction: "where is a symbol declared? Find it by fuzzy name.",
	Skill:       "Where is `Foo` declared? Find a symbol by (fuzzy) name",
	Doc:         "declarations matching a fuzzy `query` in the workspace, with kind and position; the count says how many more `scope: \"all\"` adds from dependencies and the standard library; gopls stops at its 100 best matches, and the equally good last ones it keeps differ from call to call, so those are left out and counted: the same search answers the same",
	Summary:     "declarations matching a fuzzy `query`, with kind and position",
	Framing:     []string{`^(no symbols|\d+ symbols?)( in the workspace| found)?`},
	Good:        Sample{Args: `{"query": "TotalArea"}`, Want: "func TotalArea"},
	Bad:         Sample{Args: `{"query": ""}`, Want: `^query is empty; `},
	Questions: []string{
		"find a function by name",
		"locate where a type is declared in the codebase without grep",
		"search for a symbol in the standard library",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.search) },
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
	all := false
	switch in.Scope {
	case "", "workspace":
	case "all":
		all = true
	default:
		return nil, errors.New(`scope must be "workspace" (the default) or "all" (dependencies and the standard library too)`)
	}
	gen := b.client.Generation()
	found, ok := b.searches.Get(gen, query)
	if !ok {
		if err := b.client.Call(ctx, "workspace/symbol", map[string]any{"query": query}, &found); err != nil {
			return nil, ask.Error(err)
		}
		b.searches.Put(gen, b.client.Changed(gen), query, found)
	}
	matches, unsettled := settledMatches(found)
	// found is shared with later calls: filtered into a new slice. The
	// workspace is the root, with the session's own snippets and no
	// other's; gopls's own scope setting is fixed at launch, so the scope
	// is applied here, and what the other scope would add is counted
	// exactly from the same answer.
	syms := make([]symbolInfo, 0, len(matches))
	outside, withheld := 0, 0
	var withheldPaths []string
	shown := b.reads.Batch()
	for _, s := range matches {
		uri := string(s.Location.URI)
		if b.buffers.Foreign(b.caller(ctx), uri) {
			continue
		}
		p, err := lspclient.URIPath(uri)
		if err != nil || !shown.Shows(p) {
			withheld++
			withheldPaths = append(withheldPaths, p)
			continue
		}
		if !all && !iplace.Within(b.root, p) {
			outside++
			continue
		}
		syms = append(syms, s)
	}
	sortSymbols(b.root, query, syms)
	out := &SearchOutput{found: len(syms), all: all}
	lines := b.buffers.LineCache()
	list := render.NewPlaceList(limit)
	for _, s := range syms {
		uri := string(s.Location.URI)
		list.Add(b.displayURI(uri), func() string {
			start := s.Location.Range.Start
			text := render.SymbolKind(s.Kind) + " " + s.Name
			if in.Detailed {
				if src := lines.Line(uri, int(start.Line)); src != "" {
					text += ": " + src
				}
			}
			return lines.Pos(uri, start).Text(text)
		})
	}
	out.Symbols, out.More = list.Files, list.More
	if list.Truncated() {
		out.Total = out.found
	}
	out.Notes = searchNotes(outside, list.Truncated(), len(found) >= maxWorkspaceSymbols, unsettled, withheld, b.via(withheldPaths...))
	return out, nil
}

// settledMatches is gopls's answer without the matches that another
// call of the same search may not have. gopls keeps its best
// maxWorkspaceSymbols matches, ordered by score, then by the length of
// the name, then by name; when more match, which of those that score
// as the last one kept survive depends on the order its parallel search
// met them in, a different few each time (on GOROOT/src, "Serve" kept
// TestServeRequest in one session and TestServeWithSlashRedirect... in
// another). Those are the last run of matches in gopls's order whose
// names do not go down in length and name: within one score they do not,
// and a better score's last match is longer than the next score's first
// but where names happen to line up. That run is left out, and counted,
// when the answer is full and something comes before it.
func settledMatches(found []symbolInfo) ([]symbolInfo, int) {
	if len(found) < maxWorkspaceSymbols {
		return found, 0
	}
	tieOrder := func(a, b symbolInfo) int {
		return cmp.Or(cmp.Compare(len(a.Name), len(b.Name)), strings.Compare(a.Name, b.Name))
	}
	i := len(found) - 1
	for i > 0 && tieOrder(found[i-1], found[i]) <= 0 {
		i--
	}
	if i == 0 {
		// One run: no score boundary shows; all of it is kept.
		return found, 0
	}
	return found[:i], len(found) - i
}

// sortSymbols orders symbols best first, the same way for the same
// answer: gopls ranks its matches by a fuzzy score but breaks ties as its
// parallel search happens to finish, so two identical calls listed them
// (and cut them at the limit) differently. The workspace's own symbols
// come first, then by how the name matches the query — exactly, ignoring
// case, as a prefix, as a substring, fuzzily — then shorter names, then
// by name, file and position.
func sortSymbols(root, query string, syms []symbolInfo) {
	type ranked struct {
		sym     symbolInfo
		outside bool
		class   int
		last    string
	}
	lq := strings.ToLower(query)
	rs := make([]ranked, len(syms))
	for i, s := range syms {
		last := s.Name[strings.LastIndexByte(s.Name, '.')+1:]
		ll := strings.ToLower(last)
		class := 5
		switch {
		case last == query || s.Name == query:
			class = 0
		case ll == lq || strings.EqualFold(s.Name, query):
			class = 1
		case strings.HasPrefix(last, query):
			class = 2
		case strings.HasPrefix(ll, lq):
			class = 3
		case strings.Contains(strings.ToLower(s.Name), lq):
			class = 4
		}
		p, err := lspclient.URIPath(string(s.Location.URI))
		rs[i] = ranked{sym: s, outside: err != nil || !iplace.Within(root, p), class: class, last: last}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if a.outside != b.outside {
			if a.outside {
				return 1
			}
			return -1
		}
		if c := cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(len(a.last), len(b.last)),
			strings.Compare(a.sym.Name, b.sym.Name), strings.Compare(string(a.sym.Location.URI), string(b.sym.Location.URI)),
			cmp.Compare(a.sym.Location.Range.Start.Line, b.sym.Location.Range.Start.Line),
			cmp.Compare(a.sym.Location.Range.Start.Character, b.sym.Location.Range.Start.Character)); c != 0 {
			return c
		}
		return cmp.Compare(a.sym.Kind, b.sym.Kind)
	})
	for i := range rs {
		syms[i] = rs[i].sym
	}
}
