package bridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goplsmcp/goplsmcp/bridge/internal/ask"
	"github.com/goplsmcp/goplsmcp/bridge/internal/render"
	"github.com/goplsmcp/goplsmcp/bridge/internal/symbol"
	"github.com/goplsmcp/goplsmcp/lspclient"
	"github.com/goplsmcp/goplsmcp/mcp"
	"go.lsp.dev/protocol"
)

// defaultReferenceLimit bounds the references listed when no limit is given.
const defaultReferenceLimit = 100

// ReferencesInput is the input of go_symbol_references.
type ReferencesInput struct {
	At
	IncludeDeclaration *bool `json:"includeDeclaration,omitempty" jsonschema:"default true"`
	Limit              int   `json:"limit,omitempty" jsonschema:"default 100"`
	Radius             int   `json:"radius,omitempty" jsonschema:"blast radius: references by package (tests apart) and importers, depth 1-3"`
}

// ReferencesOutput is the result of go_symbol_references.
type ReferencesOutput struct {
	URI         string       `json:"uri,omitempty" jsonschema:"the snippet or overlay buffer the call named, for later calls"`
	Note        string       `json:"note,omitempty" jsonschema:"how the position was adjusted, if it was"`
	Symbol      string       `json:"symbol" jsonschema:"the identifier whose references these are"`
	Total       int          `json:"total,omitempty" jsonschema:"number of references found, the declaration included, when fewer are listed"`
	Notes       Notes        `json:"notes,omitempty" jsonschema:"that the list is cut at limit, and whose source lines are withheld since they lie outside the workspace root, as the text says it"`
	Declaration string       `json:"declaration,omitempty" jsonschema:"path:line:col of the reference that is the declaration; 1-based, byte columns, as go vet prints them"`
	Refs        Places       `json:"refs" jsonschema:"references by file"`
	More        Counts       `json:"more,omitzero" jsonschema:"by file, how many are beyond the limit, not listed"`
	Radius      *BlastRadius `json:"radius,omitempty" jsonschema:"with radius: the packages the symbol's references reach"`

	found int // what Total says, listed or not
}

// Render implements mcp.Renderer: a count line, then each file's path
// followed by its references as line:col: source line, and, for a
// cut list, how many more each file has.
func (o *ReferencesOutput) Render() string {
	var b strings.Builder
	if o.URI != "" {
		b.WriteString("buffer " + o.URI + "\n")
	}
	if o.Note != "" {
		b.WriteString(o.Note + "\n")
	}
	fmt.Fprintf(&b, "%s to %s in %s", render.Plural(o.found, "reference"), o.Symbol, render.Plural(render.FilesIn(&o.Refs, &o.More), "file"))
	if o.Declaration != "" {
		fmt.Fprintf(&b, ", the declaration at %s included", o.Declaration)
	}
	b.WriteString(o.Notes.Parens() + "\n")
	if o.Radius != nil {
		o.Radius.render(&b)
	}
	render.WritePlaces(&b, &o.Refs, &o.More)
	return strings.TrimSuffix(b.String(), "\n")
}

// symbolReferencesTool is go_symbol_references's entry in the catalogue (see ToolSpec).
var symbolReferencesTool = ToolSpec{
	Name:        "go_symbol_references",
	Title:       "Find references",
	Description: "Find usages: every reference to a symbol (function, type, method, field, variable), by file with source lines, the declaration included. Who uses this? radius: the blast radius, what a change breaks.",
	Narrow:      "narrow the call: pass a smaller limit (every file keeps its count)",
	Instruction: "find usages: who uses this function, type, field or variable? radius: what a change reaches.",
	Skill:       "Who uses this function, type, field or variable? With `radius: 1..3`, what a change to it reaches (references by package, tests apart, and the packages importing those)",
	Doc:         "every reference to a symbol, grouped by file, with the source line; the declaration is listed too and named (`includeDeclaration: false` leaves it out)",
	Summary:     "every reference to a symbol, grouped by file, with the source line; with `radius`, its blast radius: references by package, tests apart, and the packages importing them",
	Framing:     []string{`^\d+ references? to \S+ in \d+ files?, the declaration at \S+ included`, `^blast radius: \d+ packages?$`, `: \d+ in code, \d+ in tests$`, `^importers( at depth \d+)?: `},
	Good:        Sample{Args: `{"file": "shapes/shapes.go", "symbol": "Shape", "limit": 2}`, Want: "references to Shape in 3 files"},
	Bad:         Sample{Args: `{"file": "shapes/shapes.go", "symbol": "NoSuchSymbol"}`, Want: `^symbol "NoSuchSymbol" is not declared `},
	Questions: []string{
		"find all usages of a method",
		"who uses this function",
		"what breaks if I change this function signature",
		"blast radius of changing a struct",
	},
	add: func(b *Bridge, s *mcp.Server, t mcp.Tool) error { return mcp.AddTool(s, t, b.references) },
}

func (b *Bridge) references(ctx context.Context, in *ReferencesInput) (*ReferencesOutput, error) {
	// References in packages that just appeared on disk count too.
	ctx = lspclient.WorkspaceWide(ctx)
	limit, err := limitOr(in.Limit, defaultReferenceLimit)
	if err != nil {
		return nil, err
	}
	if err := checkRadius(in.Radius); err != nil {
		return nil, err
	}
	t, err := b.targets.Resolve(ctx, b.caller(ctx), in.At)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	withDecl := in.IncludeDeclaration == nil || *in.IncludeDeclaration
	params := t.Position()
	params["context"] = map[string]any{"includeDeclaration": withDecl}
	// The declaration is among the references gopls lists, unmarked: the
	// definition says which one it is.
	var locs, defs []protocol.Location
	calls := 1
	if withDecl {
		calls = 2
	}
	var defErr error
	ask.ForEach(ctx, calls, func(i int) {
		if i == 0 {
			err = b.client.Call(ctx, "textDocument/references", params, &locs)
		} else {
			defErr = b.client.Call(ctx, "textDocument/definition", t.Position(), &defs)
		}
	})
	var re *lspclient.ResponseError
	if err == nil && defErr != nil && !errors.As(defErr, &re) {
		// gopls failed as a whole (it was restarted, say), not just to
		// find the declaration: an answer without it would be wrong.
		err = defErr
	}
	if err != nil {
		return nil, ask.Error(err)
	}
	locs = b.buffers.DropForeign(b.caller(ctx), locs)
	slices.SortFunc(locs, func(a, b protocol.Location) int {
		return cmp.Or(cmp.Compare(a.URI, b.URI),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	out := &ReferencesOutput{URI: t.Buffer, Note: t.Note, Symbol: symbol.IdentAt(t.Src.Line(t.Line), t.Character), found: len(locs)}
	lines := b.buffers.LineCache()
	list := render.NewPlaceList(limit)
	for _, l := range locs {
		file := b.displayURI(string(l.URI))
		list.Add(file, func() string { return lines.Place(l) })
		if out.Declaration == "" && slices.ContainsFunc(defs, func(d protocol.Location) bool { return d.URI == l.URI && d.Range.Start == l.Range.Start }) {
			out.Declaration = lines.Pos(string(l.URI), l.Range.Start).In(file)
		}
	}
	out.Refs, out.More = list.Files, list.More
	if list.Truncated() {
		out.Total, out.Notes = out.found, Notes{render.Truncated}
	}
	var uris []string
	for _, l := range locs {
		uris = append(uris, string(l.URI))
	}
	if files, n := b.notShown(uriPaths(uris...)...); n > 0 {
		out.Notes.Add(b.withheldText(n, "reference", files))
	}
	if in.Radius > 0 {
		if out.Radius, err = b.radius(ctx, locs, in.Radius); err != nil {
			return nil, err
		}
	}
	return out, nil
}
